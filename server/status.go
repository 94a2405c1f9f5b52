package server

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/forward"
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
	return forward.Call(s.fwd, ctx, req, forward.Unary, func(ctx context.Context, req *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
		if err := s.node.ReadBarrier(ctx); err != nil {
			return nil, s.raftError(err)
		}
		return s.statusLocal(ctx, req)
	}, viaCluster(idnodev1.ClusterServiceClient.Status))
}

func (s *Server) statusLocal(ctx context.Context, _ *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
	leaderID, _ := s.node.Leader()
	out := &idnodev1.StatusResponse{
		Term:         s.node.Term(),
		CommitIndex:  s.node.CommitIndex(),
		AppliedIndex: s.node.AppliedIndex(),
		Self:         s.cfg.Tag,
	}
	if fault := s.node.StorageFault(); fault != nil {
		out.StorageFault = fault.Error()
	}
	if leaderID != "" {
		out.Leader = s.tagOf(leaderID)
	}
	byID := make(map[string]*idnodev1.NodeStatus)
	for _, n := range s.node.FSM().Nodes() {
		byID[n.ID] = &idnodev1.NodeStatus{Tag: n.Tag, Id: n.ID, RaftAddress: n.RaftAddress, GrpcAddress: n.GRPCAddress, State: "unknown"}
	}
	for _, m := range s.node.Members() {
		ns, ok := byID[m.ID]
		if !ok {
			ns = &idnodev1.NodeStatus{Tag: s.tagOf(m.ID), Id: m.ID, State: "unknown"}
			byID[m.ID] = ns
		}
		ns.RaftAddress, ns.Voter = m.Address, m.Voter
		out.Nodes = append(out.Nodes, ns)
	}
	s.probe(ctx, out.Nodes, leaderID)
	return out, nil
}

// probe fills state and reachable: this node knows its own state, and asks every other node's
// health service, in parallel and on its internal port (its Raft address), whether it answers.
func (s *Server) probe(ctx context.Context, nodes []*idnodev1.NodeStatus, leaderID string) {
	var wg sync.WaitGroup
	for _, ns := range nodes {
		switch {
		case ns.Id == s.node.ID():
			ns.State, ns.Reachable = s.node.State(), true
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
	cc, err := s.fwd.Conn(addr)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: HealthLocal})
	// Any answer counts, a refusal too: a node that has just started may not know the cluster
	// secret yet, and the probed node then refuses the probe, but it is reachable.
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return false
	}
	return true
}

func (s *Server) voterCount() int {
	n := 0
	for _, m := range s.node.Members() {
		if m.Voter {
			n++
		}
	}
	return max(n, 1)
}
