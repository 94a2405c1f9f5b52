package server

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/opaque"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/reason"
)

// A follower the leader's answer shows to be behind on a collection's opaque setting does not
// write plain IDs for it: once its state holds the setting it writes forms; while it cannot
// catch up, those callers are refused and the others of the batch are not.
func TestRelayedOpaqueAnswersWaitForTheSetting(t *testing.T) {
	t.Parallel()
	f := fsm.New()
	mustApplyFSM(t, f, fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	s := &idService{core: newCore(Config{Separator: '/'}, &fakeCluster{leader: true, fsm: f}, nil)}
	incs := []*raftv1.IdentityIncrement{{Database: "shop", Name: "orders", Count: 1}, {Database: "shop", Name: "users", Count: 1}}
	answers := []*forwardv1.IdentityAnswer{{First: 1, Last: 1, Opaque: true}, {First: 1, Last: 1}}
	results := func() []identity.Result {
		out := []identity.Result{{IdentityBlock: docid.IdentityBlock{First: 1, Last: 1}}, {IdentityBlock: docid.IdentityBlock{First: 1, Last: 1}}}
		s.forms().awaitRelayed(context.Background(), incs, answers, out)
		return out
	}

	out := results()
	if status.Code(out[0].Err) != codes.Unavailable || reason.Of(out[0].Err) != reason.NoQuorum || out[1].Err != nil {
		t.Fatalf("a state without the setting the leader answered: errors %v, %v; want NO_QUORUM for orders only", out[0].Err, out[1].Err)
	}

	key := bytes.Repeat([]byte{7}, fsm.OpaqueKeyLen)
	mustApplyFSM(t, f, fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"Orders"}, Key: key})
	if out := results(); out[0].Err != nil || out[1].Err != nil {
		t.Fatalf("a state with the setting: errors %v, %v", out[0].Err, out[1].Err)
	}
	out = results()
	if out[0].Forms == nil || out[1].Forms != nil {
		t.Fatalf("forms of orders %v, of users %v; want orders' alone", out[0].Forms, out[1].Forms)
	}
	id, err := s.forms().identityWriter(incs[0], out[0].Forms)(1)
	c, _ := opaque.NewIdentityCodec(key, "orders")
	want, _ := c.Encode(1)
	if err != nil || id != "orders/"+want || !strings.HasPrefix(id, "orders/") {
		t.Fatalf("orders' first ID is %q, %v; want orders/%s", id, err, want)
	}
}

// What writing a Generate's IDs as forms costs the node beside plain IDs, with the forms the
// increment's answer carries: one encryption per ID, for a call of 1 and of 100 IDs.
func BenchmarkIdentityWriter(b *testing.B) {
	f := fsm.New()
	mustApplyFSM(b, f, fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustApplyFSM(b, f, fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: bytes.Repeat([]byte{7}, fsm.OpaqueKeyLen)})
	s := &idService{core: newCore(Config{Separator: '/'}, &fakeCluster{leader: true, fsm: f}, nil)}
	for _, name := range []string{"orders", "users"} {
		for _, count := range []int64{1, 100} {
			inc := &raftv1.IdentityIncrement{Database: "shop", Name: name, Count: count}
			forms := appliedForms(b, f, inc)
			kind := map[string]string{"orders": "opaque", "users": "plain"}[name]
			b.Run(fmt.Sprintf("%s/count=%d", kind, count), func(b *testing.B) {
				for b.Loop() {
					write := s.forms().identityWriter(inc, forms)
					for v := range count {
						if _, err := write(v + 1); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
