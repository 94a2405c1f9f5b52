package server

import (
	"context"
	"net"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/memberid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// membershipTimeout bounds one configuration change; raft needs a quorum for it.
const membershipTimeout = 10 * time.Second

// AddNode registers a node in the FSM (assigning a tag if none is given) and makes it a Raft
// member. It is idempotent, so a joining node or an operator may simply retry it.
func (s *Server) AddNode(ctx context.Context, req *idnodev1.AddNodeRequest) (*idnodev1.AddNodeResponse, error) {
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
	return forward(s, ctx, req, s.addNodeLocal, viaCluster(idnodev1.ClusterServiceClient.AddNode))
}

func (s *Server) addNodeLocal(ctx context.Context, req *idnodev1.AddNodeRequest) (*idnodev1.AddNodeResponse, error) {
	// The decisions below read the registry and the configuration: they must see all of it.
	if err := s.node.ReadBarrier(ctx); err != nil {
		return nil, s.raftError(err)
	}
	if err := s.reserveConfiguredTags(ctx); err != nil {
		return nil, err
	}
	resp, err := s.apply(ctx, fsm.RegisterNodeCommand, &raftv1.RegisterNode{
		Tag: req.GetTag(), Id: req.GetId(), RaftAddress: req.GetRaftAddress(),
		GrpcAddress: req.GetGrpcAddress(), Incarnation: req.GetIncarnation(), Separator: req.GetSeparator(),
	})
	if err != nil {
		return nil, err
	}
	n := resp.(fsm.Node)
	suffrage := raft.Voter
	if req.GetNonVoter() {
		suffrage = raft.Nonvoter
	}
	if !s.isMember(n.ID, n.RaftAddress, suffrage) {
		id, addr := raft.ServerID(n.ID), raft.ServerAddress(n.RaftAddress)
		// Exactly one of the two: AddVoter already starts a change when called.
		var f raft.IndexFuture
		if req.GetNonVoter() {
			f = s.node.Raft().AddNonvoter(id, addr, 0, membershipTimeout)
		} else {
			f = s.node.Raft().AddVoter(id, addr, 0, membershipTimeout)
		}
		if err := f.Error(); err != nil {
			return nil, s.raftError(err)
		}
		s.log.Info("node added to the cluster", "tag", n.Tag, "raft", n.RaftAddress, "grpc", n.GRPCAddress, "voter", !req.GetNonVoter())
	}
	return &idnodev1.AddNodeResponse{Node: &idnodev1.NodeStatus{
		Tag: n.Tag, Id: n.ID, RaftAddress: n.RaftAddress, GrpcAddress: n.GRPCAddress, Voter: suffrage == raft.Voter,
	}, Separator: s.node.FSM().Separator()}, nil
}

// isMember reports whether the configuration already holds id at addr with this suffrage.
func (s *Server) isMember(id, addr string, suffrage raft.ServerSuffrage) bool {
	for _, srv := range s.configuration() {
		if string(srv.ID) == id {
			return string(srv.Address) == addr && srv.Suffrage == suffrage
		}
	}
	return false
}

// reserveConfiguredTags registers every Raft member that has not registered itself yet (a
// static peer that has not started), so the FSM never assigns its tag to someone else.
func (s *Server) reserveConfiguredTags(ctx context.Context) error {
	registered := make(map[string]bool)
	for _, n := range s.node.FSM().Nodes() {
		registered[n.ID] = true
	}
	for _, srv := range s.configuration() {
		tag, ok := memberid.Tag(string(srv.ID))
		if registered[string(srv.ID)] || !ok {
			continue
		}
		if _, err := s.apply(ctx, fsm.RegisterNodeCommand, &raftv1.RegisterNode{Tag: tag, Id: string(srv.ID), RaftAddress: string(srv.Address)}); err != nil {
			return err
		}
	}
	return nil
}

// RemoveNode retires the node's tag for ever, then takes it out of the Raft configuration.
func (s *Server) RemoveNode(ctx context.Context, req *idnodev1.RemoveNodeRequest) (*idnodev1.RemoveNodeResponse, error) {
	if err := docid.ValidateNodeTag(req.GetTag()); err != nil {
		return nil, toStatus(err)
	}
	return forward(s, ctx, req, s.removeNodeLocal, viaCluster(idnodev1.ClusterServiceClient.RemoveNode))
}

func (s *Server) removeNodeLocal(ctx context.Context, req *idnodev1.RemoveNodeRequest) (*idnodev1.RemoveNodeResponse, error) {
	if err := s.node.ReadBarrier(ctx); err != nil {
		return nil, s.raftError(err)
	}
	id, ok := s.memberID(req.GetTag())
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no node has tag %s (see ClusterService/Status)", req.GetTag())
	}
	if _, err := s.apply(ctx, fsm.RemoveNodeCommand, &raftv1.RemoveNode{Tag: req.GetTag()}); err != nil {
		return nil, err
	}
	if s.inConfiguration(id) {
		if err := s.node.Raft().RemoveServer(raft.ServerID(id), 0, membershipTimeout).Error(); err != nil {
			return nil, s.raftError(err)
		}
	}
	s.log.Info("node removed; its tag is retired", "tag", req.GetTag())
	return &idnodev1.RemoveNodeResponse{}, nil
}

// memberID finds the raft id of the node with tag, in the registry or, for a static peer that
// never registered, in the configuration.
func (s *Server) memberID(tag string) (string, bool) {
	for _, n := range s.node.FSM().Nodes() {
		if n.Tag == tag {
			return n.ID, true
		}
	}
	for _, srv := range s.configuration() {
		if t, _ := memberid.Tag(string(srv.ID)); t == tag {
			return string(srv.ID), true
		}
	}
	return "", false
}

func (s *Server) inConfiguration(id string) bool {
	for _, srv := range s.configuration() {
		if string(srv.ID) == id {
			return true
		}
	}
	return false
}

// TransferLeadership hands leadership to the node with the given tag, or to any up-to-date
// voter when the tag is empty, and waits until it has.
func (s *Server) TransferLeadership(ctx context.Context, req *idnodev1.TransferLeadershipRequest) (*idnodev1.TransferLeadershipResponse, error) {
	if req.GetTag() != "" {
		if err := docid.ValidateNodeTag(req.GetTag()); err != nil {
			return nil, toStatus(err)
		}
	}
	return forwardWatching(s, ctx, req, s.transferLeadershipLocal, viaCluster(idnodev1.ClusterServiceClient.TransferLeadership), false)
}

func (s *Server) transferLeadershipLocal(ctx context.Context, req *idnodev1.TransferLeadershipRequest) (*idnodev1.TransferLeadershipResponse, error) {
	if !s.node.IsLeader() {
		return nil, s.raftError(errNoLeader)
	}
	if s.voterCount() < 2 {
		return nil, status.Error(codes.FailedPrecondition, "there is no other voter to hand leadership to")
	}
	r := s.node.Raft()
	var f raft.Future
	switch {
	case req.GetTag() == "":
		f = r.LeadershipTransfer()
	case req.GetTag() == s.cfg.Tag:
		return &idnodev1.TransferLeadershipResponse{Leader: s.cfg.Tag}, nil
	default:
		id, ok := s.memberID(req.GetTag())
		if !ok {
			return nil, status.Errorf(codes.NotFound, "no node has tag %s", req.GetTag())
		}
		var addr raft.ServerAddress
		for _, srv := range s.configuration() {
			if string(srv.ID) == id {
				if srv.Suffrage != raft.Voter {
					return nil, status.Errorf(codes.FailedPrecondition, "node %s is not a voter and cannot lead", req.GetTag())
				}
				addr = srv.Address
			}
		}
		f = r.LeadershipTransferToServer(raft.ServerID(id), addr)
	}
	if err := f.Error(); err != nil {
		return nil, status.Errorf(codes.Unavailable, "leadership transfer failed: %v; retry", err)
	}
	// The old leader learns who won from the new leader's first heartbeat.
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if _, leader := r.LeaderWithID(); leader != "" && string(leader) != s.node.ID() {
			return &idnodev1.TransferLeadershipResponse{Leader: s.tagOf(string(leader))}, nil
		}
		select {
		case <-ctx.Done():
			return nil, status.Errorf(codes.DeadlineExceeded, "leadership was handed over, but no new leader was seen before the deadline; see ClusterService/Status")
		case <-t.C:
		}
	}
}

// tagOf maps a raft id to the node's tag: the registry's, or the one the id carries.
func (s *Server) tagOf(id string) string {
	for _, n := range s.node.FSM().Nodes() {
		if n.ID == id {
			return n.Tag
		}
	}
	if tag, ok := memberid.Tag(id); ok {
		return tag
	}
	return id
}
