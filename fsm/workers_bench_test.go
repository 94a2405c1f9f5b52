package fsm

import (
	"strconv"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BenchmarkAcquireWorker is an Acquire and a Release in a database whose every worker is
// leased, by the size of the layout: the lapsed worker is found in the expiry heap, so the cost
// grows with log n, not n.
func BenchmarkAcquireWorker(b *testing.B) {
	for _, bits := range []int32{4, 12, 20} {
		b.Run(strconv.Itoa(int(bits))+"-bits", func(b *testing.B) {
			f := New()
			at := int64(1_000_000)
			acquire := func() WorkerLease {
				at++
				l, ok := mustApply(b, f, AcquireWorkerCommand, &raftv1.AcquireWorker{WorkerBits: bits, LeaseMs: MaxWorkerLeaseMs, ProposedAtMs: at}).(WorkerLease)
				if !ok {
					b.Fatal("acquire refused")
				}
				return l
			}
			release := func(l WorkerLease) {
				if a := mustApply(b, f, ReleaseWorkerCommand, &raftv1.ReleaseWorker{Worker: l.Worker, Epoch: l.Epoch, ProposedAtMs: at}); a != nil {
					b.Fatal(a)
				}
			}
			for range 1<<bits - 1 {
				acquire()
			}
			release(acquire()) // all leased, the last just released
			for b.Loop() {
				release(acquire())
			}
		})
	}
}
