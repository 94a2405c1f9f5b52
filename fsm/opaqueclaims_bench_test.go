package fsm

import (
	"testing"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BenchmarkOpaqueIdentity measures an increment of docid.DefaultMaxCount values of an opaque
// collection, without claimed forms and with 1,000 of them inside every range: the values of
// claimed forms are skipped as claimed numbers are, with no encryption a value.
func BenchmarkOpaqueIdentity(b *testing.B) {
	for _, bc := range []struct {
		name  string
		claim bool
	}{{"no-claimed-forms", false}, {"1000-claimed-forms", true}} {
		b.Run(bc.name, func(b *testing.B) {
			f := New()
			mustApplyOK(b, f, MakeOpaqueCommand, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA})
			batch := &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: "orders", Count: docid.DefaultMaxCount}}}
			claimed := 0
			for b.Loop() {
				if bc.claim { // claims ahead of the counter, outside the measurement
					b.StopTimer()
					current := f.st.databases[DefaultDatabase].identities["orders"]
					ids := make([]string, 1000)
					for i := range ids {
						ids[i] = "orders/" + formOf(b, opaqueKeyA, "orders", current+1+int64(i)*50)
					}
					mustApplyOK(b, f, ClaimCommand, &raftv1.Claim{Ids: ids})
					b.StartTimer()
				}
				r := mustApply(b, f, IdentityBatchCommand, batch).(IdentityBatchResult).Ranges[0]
				if r.Err != nil || r.Len() != docid.DefaultMaxCount {
					b.Fatalf("%+v", r)
				}
				claimed += len(r.Skipped)
			}
			if bc.claim && claimed == 0 {
				b.Fatal("no claimed form was skipped")
			}
		})
	}
}
