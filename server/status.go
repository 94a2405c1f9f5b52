package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// probeTimeout bounds the health probe that decides a node's "reachable" in Status.
const probeTimeout = 300 * time.Millisecond

// Status reports the cluster. With consistent the leader answers, after confirming with a
// majority that it still leads, so the answer is never stale; without it, this node answers
// from its own view.
func (s *Server) Status(ctx context.Context, req *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
	if !req.GetConsistent() {
		return s.statusLocal(ctx, req)
	}
	return forward(s, ctx, req, func(ctx context.Context, req *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
		if err := s.node.ReadBarrier(ctx); err != nil {
			return nil, s.raftError(err)
		}
		return s.statusLocal(ctx, req)
	}, viaCluster(idnodev1.ClusterServiceClient.Status))
}

func (s *Server) statusLocal(ctx context.Context, _ *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
	r := s.node.Raft()
	_, leaderID := r.LeaderWithID()
	out := &idnodev1.StatusResponse{
		Term:         r.CurrentTerm(),
		CommitIndex:  r.CommitIndex(),
		AppliedIndex: r.AppliedIndex(),
		Self:         s.cfg.Tag,
	}
	if leaderID != "" {
		out.Leader = s.tagOf(string(leaderID))
	}
	byID := make(map[string]*idnodev1.NodeStatus)
	for _, n := range s.node.FSM().Nodes() {
		byID[n.ID] = &idnodev1.NodeStatus{Tag: n.Tag, Id: n.ID, RaftAddress: n.RaftAddress, GrpcAddress: n.GRPCAddress, State: "unknown"}
	}
	for _, srv := range s.configuration() {
		ns, ok := byID[string(srv.ID)]
		if !ok {
			ns = &idnodev1.NodeStatus{Tag: s.tagOf(string(srv.ID)), Id: string(srv.ID), State: "unknown"}
			byID[string(srv.ID)] = ns
		}
		ns.RaftAddress = string(srv.Address)
		ns.Voter = srv.Suffrage == raft.Voter
		out.Nodes = append(out.Nodes, ns)
	}
	s.probe(ctx, out.Nodes, string(leaderID))
	return out, nil
}

// probe fills state and reachable: this node knows its own state, and asks every other node's
// health service, in parallel and on its internal port (its Raft address), whether it answers.
func (s *Server) probe(ctx context.Context, nodes []*idnodev1.NodeStatus, leaderID string) {
	var wg sync.WaitGroup
	for _, ns := range nodes {
		switch {
		case ns.Id == s.node.ID():
			ns.State, ns.Reachable = strings.ToLower(s.node.Raft().State().String()), true
			continue
		case ns.Id == leaderID:
			ns.State = "leader"
		case leaderID != "":
			ns.State = "follower"
		}
		if ns.RaftAddress == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns.Reachable = s.answers(ctx, ns.RaftAddress)
		}()
	}
	wg.Wait()
}

func (s *Server) answers(ctx context.Context, addr string) bool {
	cc, err := s.peers.conn(addr)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: HealthLocal})
	return err == nil
}

// configuration returns the latest Raft configuration, or nothing while it cannot be read.
func (s *Server) configuration() []raft.Server {
	f := s.node.Raft().GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	return f.Configuration().Servers
}

func (s *Server) voterCount() int {
	n := 0
	for _, srv := range s.configuration() {
		if srv.Suffrage == raft.Voter {
			n++
		}
	}
	return max(n, 1)
}
