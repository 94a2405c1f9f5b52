package fsm

import (
	"bytes"
	"testing"

	"github.com/idnode/idnode/opaque"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// An increment's answer says how its IDs are written at the index it was applied: nil for a
// plain collection; for an opaque one, the codec the state keeps, the database's key and the
// collection as the state folds it (the tweak), which make the same forms. A replay answers
// the forms of its own index: a request first answered plain is opaque once the collection is.
func TestIdentityAnswersCarryTheirForms(t *testing.T) {
	f := New()
	inc := func(name, requestID string) IdentityRange {
		t.Helper()
		res := mustApply(t, f, IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: name, Count: 1, RequestId: requestID}}})
		r := res.(IdentityBatchResult).Ranges[0]
		if r.Err != nil {
			t.Fatalf("increment of %s: %v", name, r.Err)
		}
		return r
	}
	if r := inc("Orders", "first"); r.Forms != nil {
		t.Fatalf("an increment before the setting answered forms %v", r.Forms)
	}
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA})

	r := inc("Orders", "")
	if r.Forms == nil || r.Forms.Tweak != "orders" || !bytes.Equal(r.Forms.Key, opaqueKeyA) {
		t.Fatalf("forms of an opaque collection's increment: %+v; want the key and the folded name", r.Forms)
	}
	made, err := opaque.NewIdentityCodec(r.Forms.Key, r.Forms.Tweak)
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := r.Forms.Codec.Encode(r.First)
	if remade, _ := made.Encode(r.First); kept != remade {
		t.Fatalf("the kept codec writes %q, one made from the answer's key and tweak %q", kept, remade)
	}
	if r := inc("users", ""); r.Forms != nil {
		t.Fatalf("a plain collection's increment answered forms %v", r.Forms)
	}
	if r := inc("Orders", "first"); r.Forms == nil || r.First != 1 {
		t.Fatalf("a replay after the setting: %+v; want value 1 with the forms", r)
	}
}
