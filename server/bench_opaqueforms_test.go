package server

import (
	"fmt"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BenchmarkIdentityForms is the step of an identity answer that writes the block's values as
// the caller's IDs, once the counter has moved: identityWriter for the call, with the forms
// the increment's answer carries, then each value written. A plain collection writes
// "plain/N"; an opaque one runs FF1 over each value with the codec the state keeps. The
// difference between the two is what an opaque identity adds to a node's answer, beside a Raft
// round's milliseconds (bench/opaque.sh measures the whole call through the Go client).
//
//	go test -run '^$' -bench IdentityForms -benchtime 100000x ./server/
func BenchmarkIdentityForms(b *testing.B) {
	f := fsm.New()
	cmd, err := fsm.Encode(fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: fsm.DefaultDatabase, Collections: []string{"opq"}, Key: make([]byte, 32)})
	if err != nil {
		b.Fatal(err)
	}
	if res := f.Apply(&raft.Log{Index: 1, Data: cmd}); res != nil {
		if err, ok := res.(error); ok {
			b.Fatal(err)
		}
	}
	if _, ok := f.Opaque(fsm.DefaultDatabase); !ok {
		b.Fatal("MakeOpaque applied, but the default database is not opaque")
	}
	s := &idService{core: newCore(Config{Separator: '/'}, &fakeCluster{fsm: f}, nil)}
	for _, name := range []string{"plain", "opq"} {
		for _, count := range []int64{1, 100} {
			b.Run(fmt.Sprintf("%s/count=%d", name, count), func(b *testing.B) {
				inc := &raftv1.IdentityIncrement{Name: name, Count: count}
				forms := appliedForms(b, f, inc)
				b.ReportAllocs()
				next := int64(1)
				for b.Loop() {
					write := s.forms().identityWriter(inc, forms)
					for v := next; v < next+count; v++ {
						if _, err := write(v); err != nil {
							b.Fatal(err)
						}
					}
					next += count
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*count), "ns/ID")
			})
		}
	}
}

// appliedForms applies inc to f and returns the forms its answer carries (nil: plain).
func appliedForms(b *testing.B, f *fsm.FSM, inc *raftv1.IdentityIncrement) *fsm.IdentityForms {
	b.Helper()
	cmd, err := fsm.Encode(fsm.IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{inc}})
	if err != nil {
		b.Fatal(err)
	}
	res, ok := f.Apply(&raft.Log{Type: raft.LogCommand, Data: cmd}).(fsm.IdentityBatchResult)
	if !ok || res.Ranges[0].Err != nil {
		b.Fatalf("increment of %s: %v", inc.GetName(), res)
	}
	return res.Ranges[0].Forms
}
