package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// fakeCluster is a Cluster of one node in a fixed state, for the server's own logic.
type fakeCluster struct {
	leader       bool
	members      []cluster.Member
	err          error // what Apply and ReadBarrier answer
	storageFault error
	fsm          *fsm.FSM
	behind       bool // the FSM has not applied the commit index yet
}

var _ Cluster = (*fakeCluster)(nil)

func (f *fakeCluster) ID() string                                    { return "A-1" }
func (f *fakeCluster) FSM() *fsm.FSM                                 { return f.fsm }
func (f *fakeCluster) IsLeader() bool                                { return f.leader }
func (f *fakeCluster) Apply(context.Context, []byte) (any, error)    { return nil, f.err }
func (f *fakeCluster) ReadBarrier(context.Context) error             { return f.err }
func (f *fakeCluster) Leader() (string, string)                      { return "A-1", "a:7000" }
func (f *fakeCluster) State() string                                 { return "leader" }
func (f *fakeCluster) Term() uint64                                  { return 2 }
func (f *fakeCluster) CommitIndex() uint64                           { return 9 }
func (f *fakeCluster) AppliedIndex() uint64                          { return 9 }
func (f *fakeCluster) HasApplied(index uint64) bool                  { return !f.behind && index <= 9 }
func (f *fakeCluster) Members() []cluster.Member                     { return f.members }
func (f *fakeCluster) AddMember(cluster.Member, time.Duration) error { return f.err }
func (f *fakeCluster) RemoveMember(string, time.Duration) error      { return f.err }
func (f *fakeCluster) TransferLeadership(cluster.Member) error       { return f.err }
func (f *fakeCluster) AwaitHandOver(context.Context)                 {}
func (f *fakeCluster) StorageFault() error                           { return f.storageFault }
func (f *fakeCluster) LeaderChanges() []cluster.LeaderChange         { return nil }

func (f *fakeCluster) WaitApplied(_ context.Context, index uint64) bool { return f.HasApplied(index) }

// The server's decisions over a cluster it does not own: a leader alone cannot hand its
// leadership on, an unknown tag is NOT_FOUND and a retired one already removed, and a cluster that lost its quorum makes a
// membership call UNAVAILABLE with NO_QUORUM.
func TestServerOverAFakeCluster(t *testing.T) {
	t.Parallel()
	fc := &fakeCluster{leader: true, members: []cluster.Member{{ID: "A-1", Address: "a:7000", Voter: true}}, fsm: fsm.New()}
	s := New(Config{Tag: "A"}, fc, nil)
	t.Cleanup(s.Close)
	ctx := context.Background()

	_, err := s.cluster.TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("transfer with no other voter: %v, want FAILED_PRECONDITION", err)
	}
	if _, err := s.cluster.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "Q"}); status.Code(err) != codes.NotFound {
		t.Errorf("remove an unknown tag: %v, want NOT_FOUND", err)
	}
	// A retry of a remove whose answer was lost finds the tag retired, and succeeds.
	mustApplyFSM(t, fc.fsm, fsm.RemoveNodeCommand, &raftv1.RemoveNode{Tag: "D"})
	if _, err := s.cluster.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "D"}); err != nil {
		t.Errorf("remove a tag retired already: %v, want success", err)
	}
	fc.err = cluster.ErrNoQuorum
	_, err = s.cluster.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "A"})
	if status.Code(err) != codes.Unavailable || reason.Of(err) != reason.NoQuorum {
		t.Errorf("remove without a quorum: %v (reason %q), want UNAVAILABLE, %s", err, reason.Of(err), reason.NoQuorum)
	}
}
