package server

import (
	"context"
	"net"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// membershipTimeout bounds one configuration change; raft needs a quorum for it.
const membershipTimeout = 10 * time.Second

// membershipHop is how AddNode and RemoveNode travel from a follower to the leader: as long as
// the leader may take to resolve the addresses (AddNode's lookups, resolveTimeout) and then
// change the configuration. Under forward.Unary's bound, shorter than the lookups alone, a
// slow name server gave the caller "no quorum" from a healthy cluster while the leader went
// on to add the node. The hop still ends when this node sees the leader change.
var membershipHop = forward.Limits{Bound: resolveTimeout + membershipTimeout, WatchLeader: true}

// AddNode registers a node in the FSM (assigning a tag if none is given) and makes it a Raft
// member. It is idempotent, so a joining node or an operator may simply retry it.
func (s *clusterService) AddNode(ctx context.Context, req *idnodev1.AddNodeRequest) (*idnodev1.AddNodeResponse, error) {
	if req.GetTag() != "" {
		if err := docid.ValidateNodeTag(req.GetTag()); err != nil {
			return nil, toStatus(err)
		}
	}
	for _, a := range [][2]string{{"raft_address", req.GetRaftAddress()}, {"grpc_address", req.GetGrpcAddress()}} {
		if _, _, err := net.SplitHostPort(a[1]); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "%s must be host:port, got %q", a[0], a[1])
		}
	}
	return forward.Call(s.fwd, ctx, req, membershipHop, s.leader().AddNode, viaCluster(s.core, idnodev1.ClusterServiceClient.AddNode, forwardv1.LeaderClient.AddNode))
}

func (l clusterLeader) AddNode(ctx context.Context, req *idnodev1.AddNodeRequest) (*idnodev1.AddNodeResponse, error) {
	// The decisions below read the registry and the configuration: they must see all of it.
	if err := l.s.barrier(ctx); err != nil {
		return nil, err
	}
	if err := l.s.reserveConfiguredTags(ctx); err != nil {
		return nil, err
	}
	if err := l.s.endpointHeld(ctx, req); err != nil {
		return nil, toStatus(err)
	}
	if err := l.s.joinAllowed(req); err != nil {
		return nil, err
	}
	n, err := propose(ctx, l.s.core, fsm.ProposeRegisterNode, &raftv1.RegisterNode{
		Tag: req.GetTag(), Id: req.GetId(), RaftAddress: req.GetRaftAddress(),
		GrpcAddress: req.GetGrpcAddress(), Incarnation: req.GetIncarnation(), Separator: req.GetSeparator(),
		FoundingVersion: fsm.CurrentVersion, NodeVersion: req.GetVersion(),
	})
	if err != nil {
		return nil, err
	}
	m := cluster.Member{ID: n.ID, Address: n.RaftAddress, Voter: !req.GetNonVoter()}
	// AddNode never demotes: a voter registering again as a non-voter stays a voter.
	if slices.Contains(l.s.node.Members(), cluster.Member{ID: m.ID, Address: m.Address, Voter: true}) {
		m.Voter = true
	}
	if !slices.Contains(l.s.node.Members(), m) {
		if err := l.s.node.AddMember(m, membershipTimeout); err != nil {
			return nil, l.s.raftError(err)
		}
		l.s.log.Info("node added to the cluster", "tag", n.Tag, "raft", n.RaftAddress, "grpc", n.GRPCAddress, "voter", m.Voter)
	}
	return &idnodev1.AddNodeResponse{Node: &idnodev1.NodeStatus{
		Tag: n.Tag, Id: n.ID, RaftAddress: n.RaftAddress, GrpcAddress: n.GRPCAddress, Voter: m.Voter,
	}, Separator: l.s.node.FSM().Separator()}, nil
}

// reserveConfiguredTags registers every Raft member that has not registered itself yet (a
// static peer that has not started), so the FSM never assigns its tag to someone else.
func (s *clusterService) reserveConfiguredTags(ctx context.Context) error {
	registered := make(map[string]bool)
	for _, n := range s.node.FSM().Nodes() {
		registered[n.ID] = true
	}
	for _, m := range s.node.Members() {
		tag, ok := docid.MemberTag(m.ID)
		if registered[m.ID] || !ok {
			continue
		}
		if _, err := propose(ctx, s.core, fsm.ProposeRegisterNode, &raftv1.RegisterNode{Tag: tag, Id: m.ID, RaftAddress: m.Address, FoundingVersion: fsm.CurrentVersion}); err != nil {
			return err
		}
	}
	return nil
}

// RemoveNode retires the node's tag for ever, then takes it out of the Raft configuration. Like
// AddNode it is idempotent: removing a tag that is retired already answers as the first did.
func (s *clusterService) RemoveNode(ctx context.Context, req *idnodev1.RemoveNodeRequest) (*idnodev1.RemoveNodeResponse, error) {
	if err := docid.ValidateNodeTag(req.GetTag()); err != nil {
		return nil, toStatus(err)
	}
	return forward.Call(s.fwd, ctx, req, membershipHop, s.leader().RemoveNode, viaCluster(s.core, idnodev1.ClusterServiceClient.RemoveNode, forwardv1.LeaderClient.RemoveNode))
}

func (l clusterLeader) RemoveNode(ctx context.Context, req *idnodev1.RemoveNodeRequest) (*idnodev1.RemoveNodeResponse, error) {
	if err := l.s.barrier(ctx); err != nil {
		return nil, err
	}
	id, ok := l.s.memberID(req.GetTag())
	if !ok && slices.Contains(l.s.node.FSM().RetiredTags(), req.GetTag()) {
		// Removed already, by this call's own first try when its answer was lost (the leader
		// changed while it was in flight): the operator's retry finds what it asked for.
		return &idnodev1.RemoveNodeResponse{}, nil
	}
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no node has tag %s (see ClusterService/Status)", req.GetTag())
	}
	// Checked before the tag is retired: raft refuses to remove the last voter, and the node
	// would be left retired but still a member.
	if l.s.isLastVoter(id) {
		return nil, status.Errorf(codes.FailedPrecondition,
			"node %s is the cluster's last voter: without it nothing could be decided again. Add another node first (idnode --join <address of this node>), wait until it is a voter, then remove %s",
			req.GetTag(), req.GetTag())
	}
	if _, err := propose(ctx, l.s.core, fsm.ProposeRemoveNode, &raftv1.RemoveNode{Tag: req.GetTag()}); err != nil {
		return nil, err
	}
	if l.s.inConfiguration(id) {
		if err := l.s.node.RemoveMember(id, membershipTimeout); err != nil {
			return nil, l.s.raftError(err)
		}
	}
	l.s.log.Info("node removed; its tag is retired", "tag", req.GetTag())
	return &idnodev1.RemoveNodeResponse{}, nil
}

// memberID finds the raft id of the node with tag, in the registry or, for a static peer that
// never registered, in the configuration.
func (s *clusterService) memberID(tag string) (string, bool) {
	for _, n := range s.node.FSM().Nodes() {
		if n.Tag == tag {
			return n.ID, true
		}
	}
	for _, m := range s.node.Members() {
		if t, _ := docid.MemberTag(m.ID); t == tag {
			return m.ID, true
		}
	}
	return "", false
}

// isLastVoter reports whether id is the only voter of the configuration.
func (s *clusterService) isLastVoter(id string) bool {
	voters := 0
	self := false
	for _, m := range s.node.Members() {
		if m.Voter {
			voters++
			self = self || m.ID == id
		}
	}
	return self && voters == 1
}

func (s *clusterService) inConfiguration(id string) bool {
	return slices.ContainsFunc(s.node.Members(), func(m cluster.Member) bool { return m.ID == id })
}

// TransferLeadership hands leadership to the node with the given tag, or to any up-to-date
// voter when the tag is empty, and waits until it has.
func (s *clusterService) TransferLeadership(ctx context.Context, req *idnodev1.TransferLeadershipRequest) (*idnodev1.TransferLeadershipResponse, error) {
	if req.GetTag() != "" {
		if err := docid.ValidateNodeTag(req.GetTag()); err != nil {
			return nil, toStatus(err)
		}
	}
	return forward.Call(s.fwd, ctx, req, forward.Limits{Bound: membershipTimeout}, s.leader().TransferLeadership, viaCluster(s.core, idnodev1.ClusterServiceClient.TransferLeadership, forwardv1.LeaderClient.TransferLeadership))
}

func (l clusterLeader) TransferLeadership(ctx context.Context, req *idnodev1.TransferLeadershipRequest) (*idnodev1.TransferLeadershipResponse, error) {
	if !l.s.node.IsLeader() {
		return nil, l.s.raftError(forward.ErrNoLeader)
	}
	if l.s.voterCount() < 2 {
		return nil, status.Error(codes.FailedPrecondition, "there is no other voter to hand leadership to")
	}
	var to cluster.Member // empty: any up-to-date voter
	switch req.GetTag() {
	case "":
	case l.s.cfg.Tag:
		return &idnodev1.TransferLeadershipResponse{Leader: l.s.cfg.Tag}, nil
	default:
		id, ok := l.s.memberID(req.GetTag())
		if !ok {
			return nil, status.Errorf(codes.NotFound, "no node has tag %s", req.GetTag())
		}
		for _, m := range l.s.node.Members() {
			if m.ID == id {
				if !m.Voter {
					return nil, status.Errorf(codes.FailedPrecondition, "node %s is not a voter and cannot lead", req.GetTag())
				}
				to = m
			}
		}
	}
	if err := l.s.node.TransferLeadership(to); err != nil {
		return nil, status.Errorf(codes.Unavailable, "leadership transfer failed: %v; retry", err)
	}
	// The old leader learns who won from the new leader's first heartbeat.
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if leader, _ := l.s.node.Leader(); leader != "" && leader != l.s.node.ID() {
			return &idnodev1.TransferLeadershipResponse{Leader: l.s.tagOf(leader)}, nil
		}
		select {
		case <-ctx.Done():
			return nil, status.Errorf(codes.DeadlineExceeded, "leadership was handed over, but no new leader was seen before the deadline; see ClusterService/Status")
		case <-t.C:
		}
	}
}

// tagOf maps a raft id to the node's tag: the registry's, or the one the id carries.
func (s *core) tagOf(id string) string {
	for _, n := range s.node.FSM().Nodes() {
		if n.ID == id {
			return n.Tag
		}
	}
	if tag, ok := docid.MemberTag(id); ok {
		return tag
	}
	return id
}
