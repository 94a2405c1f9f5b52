package server

import (
	"context"
	"strconv"
	"sync"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/version"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Headers of a node's answers to health probes on the internal port: its version, applied
// index and storage fault (for Status) and its commit index (for Status, and for a node
// catching up, catchup.go).
const (
	versionHeader      = "idnode-version"
	commitIndexHeader  = "idnode-commit-index"
	appliedIndexHeader = "idnode-applied-index"
	storageFaultHeader = "idnode-storage-fault"
	// supportedVersionHeader is the cluster version the node's build supports (finalising
	// checks every member's); builds from before cluster versions send none.
	supportedVersionHeader = "idnode-supported-version"
	// clockOffsetHeader is the node's clock minus the leader's, in nanoseconds, as it last
	// measured it (clock.go); none before its first measurement.
	clockOffsetHeader = "idnode-clock-offset-ns"
)

// withFactsOnProbe answers a health check on the internal port with the node's version,
// commit index, wall clock and clock offset in the header, so Status, a node catching up and
// a node measuring its clock (clock.go) learn them from a probe. Other calls are left alone:
// they are the hot path.
func (s *interceptors) withFactsOnProbe(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if info.FullMethod == healthpb.Health_Check_FullMethodName {
		md := metadata.Pairs(versionHeader, version.Get().String(), commitIndexHeader, strconv.FormatUint(s.node.CommitIndex(), 10),
			appliedIndexHeader, strconv.FormatUint(s.node.AppliedIndex(), 10),
			supportedVersionHeader, strconv.FormatUint(uint64(fsm.CurrentVersion), 10),
			clockHeader, strconv.FormatInt(s.cfg.Now().UnixNano(), 10))
		if s.self.joinUnfinished() {
			md.Set(joinHeader, joinUnfinishedValue)
		}
		if fault := s.storageFault(); fault != "" {
			md.Set(storageFaultHeader, fault)
		}
		md = metadata.Join(md, digestAnswer(ctx, s.node.FSM(), s.node.WaitApplied))
		if offset, ok := s.clock.Offset(); ok {
			md.Set(clockOffsetHeader, strconv.FormatInt(int64(offset), 10))
		}
		_ = grpc.SetHeader(ctx, md)
	}
	return handler(ctx, req)
}

// Status reports the cluster. With consistent the leader answers, after confirming with a
// majority that it still leads, so the answer is never stale; without it, this node answers
// from its own view.
func (s *clusterService) Status(ctx context.Context, req *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
	if !req.GetConsistent() {
		return s.statusLocal(ctx, req)
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().Status, viaCluster(s.core, idnodev1.ClusterServiceClient.Status, forwardv1.LeaderClient.Status))
}

// Status runs on the leader.
func (l clusterLeader) Status(ctx context.Context, req *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
	if err := l.s.barrier(ctx); err != nil {
		return nil, err
	}
	return l.s.statusLocal(ctx, req)
}

func (s *clusterService) statusLocal(ctx context.Context, _ *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
	leaderID, _ := s.node.Leader()
	out := &idnodev1.StatusResponse{
		Term:         s.node.Term(),
		CommitIndex:  s.node.CommitIndex(),
		AppliedIndex: s.node.AppliedIndex(),
		Self:         s.cfg.Tag,
		StorageFault: s.storageFault(),
	}
	if leaderID != "" {
		out.Leader = s.tagOf(leaderID)
	}
	for _, m := range s.LeaderMarks() {
		out.LeaderChanges = append(out.LeaderChanges, &idnodev1.LeaderChange{AtMs: m.AtMs, Term: m.Term, Leader: m.Leader})
	}
	out.Issued = s.issued.snapshot()
	out.ClusterVersion = s.clusterVersion()
	out.Headroom = s.ids.headroom()
	out.ReplicaCheck = s.replicas.Last()
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
		if f, fenced := s.node.FSM().Fence(m.ID); fenced {
			ns.DivergedAtIndex = f.GetIndex()
		}
		out.Nodes = append(out.Nodes, ns)
	}
	s.probe(ctx, out.Nodes, leaderID)
	return out, nil
}

// probe fills state and reachable: this node knows its own state, and asks every other node's
// health service, in parallel and on its internal port (its Raft address), whether it answers.
func (s *clusterService) probe(ctx context.Context, nodes []*idnodev1.NodeStatus, leaderID string) {
	var wg sync.WaitGroup
	for _, ns := range nodes {
		switch {
		case ns.Id == s.node.ID():
			ns.State, ns.Reachable, ns.Version, ns.JoinUnfinished = s.node.State(), true, version.Get().String(), s.self.joinUnfinished()
			ns.AppliedIndex, ns.CommitIndex, ns.StorageFault = s.node.AppliedIndex(), s.node.CommitIndex(), s.storageFault()
			ns.SupportedVersion = fsm.CurrentVersion
			if offset, ok := s.clock.Offset(); ok {
				ns.ClockOffsetSeconds, ns.ClockOffsetMeasured = offset.Seconds(), true
			}
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
			s.probes.answers(ctx, ns)
		}()
	}
	wg.Wait()
}

// storageFault is why this node cannot write its Raft log, "" when it can: as Status and the
// probe's header say it.
func (s *core) storageFault() string {
	if fault := s.node.StorageFault(); fault != nil {
		return fault.Error()
	}
	return ""
}

func (s *core) voterCount() int {
	n := 0
	for _, m := range s.node.Members() {
		if m.Voter {
			n++
		}
	}
	return max(n, 1)
}
