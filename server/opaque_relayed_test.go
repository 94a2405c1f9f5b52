package server

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/opaque"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/reason"
)

// A follower writes an opaque collection's IDs with what the leader's answer carries: the key
// and the tweak its state wrote the forms with at the increment's index. The follower's own
// state here lacks the setting and its applied index is held behind the leader's, so it
// cannot catch up, and it still writes the leader's forms. A leader of an older build answers
// opaque alone: the follower then needs its own state, and refuses while it lacks the setting.
func TestAFollowerWritesTheFormsTheLeaderAnswered(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, fsm.OpaqueKeyLen)
	c, err := opaque.NewIdentityCodec(key, "orders")
	if err != nil {
		t.Fatal(err)
	}
	form, _ := c.Encode(5)
	want := []string{"Orders/" + form}
	for _, tc := range []struct {
		name    string
		answer  *forwardv1.IdentityAnswer
		setting bool // the follower's state holds the setting
		want    []string
	}{
		{"this build's leader", &forwardv1.IdentityAnswer{First: 5, Last: 5, Opaque: true, OpaqueKey: key, OpaqueTweak: "orders"}, false, want},
		{"an older leader", &forwardv1.IdentityAnswer{First: 5, Last: 5, Opaque: true}, false, nil},
		{"an older leader, the setting held", &forwardv1.IdentityAnswer{First: 5, Last: 5, Opaque: true}, true, want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gi := grpc.NewServer()
			forwardv1.RegisterForwardServer(gi, answeringLeader{answer: tc.answer})
			state := fsm.New()
			if tc.setting {
				mustApplyFSM(t, state, fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: key})
			}
			follower := New(Config{Tag: "B", Separator: '/', Dial: serve(t, gi), ElectionWait: 200 * time.Millisecond},
				otherMember{&fakeCluster{fsm: state, behind: true}}, nil)
			t.Cleanup(follower.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			ids, err := follower.ids.identityIDs(ctx, &raftv1.IdentityIncrement{Name: "Orders", Count: 1})
			if tc.want == nil {
				if status.Code(err) != codes.Unavailable || reason.Of(err) != reason.NoQuorum {
					t.Fatalf("IDs %v, %v; want UNAVAILABLE, NO_QUORUM: the follower cannot write the forms", ids, err)
				}
				return
			}
			if err != nil || !slices.Equal(ids, tc.want) {
				t.Fatalf("IDs %v, %v; want %v", ids, err, tc.want)
			}
		})
	}
}

// answeringLeader answers every relayed increment with answer, as a leader would.
type answeringLeader struct {
	forwardv1.UnimplementedForwardServer
	answer *forwardv1.IdentityAnswer
}

func (l answeringLeader) NextIdentities(_ context.Context, req *forwardv1.NextIdentitiesRequest) (*forwardv1.NextIdentitiesResponse, error) {
	out := &forwardv1.NextIdentitiesResponse{}
	for range req.GetIncrements() {
		out.Answers = append(out.Answers, proto.CloneOf(l.answer))
	}
	return out, nil
}
