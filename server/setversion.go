package server

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// ClusterVersion reports the cluster version from the leader.
func (s *clusterService) ClusterVersion(ctx context.Context, req *idnodev1.ClusterVersionRequest) (*idnodev1.ClusterVersionResponse, error) {
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().ClusterVersion, viaCluster(s.core, idnodev1.ClusterServiceClient.ClusterVersion, forwardv1.LeaderClient.ClusterVersion))
}

// ClusterVersion runs on the leader, after a read barrier: a finalisation just made shows.
func (l clusterLeader) ClusterVersion(ctx context.Context, _ *idnodev1.ClusterVersionRequest) (*idnodev1.ClusterVersionResponse, error) {
	if err := l.s.barrier(ctx); err != nil {
		return nil, err
	}
	return l.s.clusterVersion(), nil
}

// clusterVersion is the cluster version as this node's FSM and Raft configuration have it.
func (s *clusterService) clusterVersion() *idnodev1.ClusterVersionResponse {
	cv := s.node.FSM().ClusterVersion()
	out := &idnodev1.ClusterVersionResponse{Finalised: cv.Finalised, Effective: fsm.CurrentVersion, DowngradeFloor: cv.Used, Supported: fsm.CurrentVersion}
	for _, m := range s.node.Members() {
		tag := s.tagOf(m.ID)
		nv, ok := cv.Nodes[tag]
		if !ok {
			nv = fsm.NodeVersion{Version: 1}
		}
		out.Members = append(out.Members, &idnodev1.MemberVersion{Tag: tag, Version: nv.Version, Build: nv.Build, Voter: m.Voter})
		out.Effective = min(out.Effective, nv.Version)
	}
	slices.SortFunc(out.Members, func(a, b *idnodev1.MemberVersion) int { return cmp.Compare(a.GetTag(), b.GetTag()) })
	return out
}

// SetClusterVersion finalises or lowers the cluster version, on the leader.
func (s *clusterService) SetClusterVersion(ctx context.Context, req *idnodev1.SetClusterVersionRequest) (*idnodev1.ClusterVersionResponse, error) {
	if v := req.GetVersion(); v < 1 || v > fsm.CurrentVersion {
		return nil, status.Errorf(codes.InvalidArgument, "version must be 1 to %d (what this node's build supports), got %d", fsm.CurrentVersion, v)
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().SetClusterVersion, viaCluster(s.core, idnodev1.ClusterServiceClient.SetClusterVersion, forwardv1.LeaderClient.SetClusterVersion))
}

// SetClusterVersion runs on the leader. Raising the version needs every member to support it,
// both as the FSM records and as the member answers now: a record outlives a node put back on
// an older build. Lowering it is the FSM's to refuse, once the log used the higher version.
func (l clusterLeader) SetClusterVersion(ctx context.Context, req *idnodev1.SetClusterVersionRequest) (*idnodev1.ClusterVersionResponse, error) {
	v := req.GetVersion()
	if v > fsm.CurrentVersion {
		return nil, status.Errorf(codes.FailedPrecondition, "the leader's build supports cluster version %d, not %d: upgrade it first", fsm.CurrentVersion, v)
	}
	if err := l.s.barrier(ctx); err != nil {
		return nil, err
	}
	was := l.s.node.FSM().ClusterVersion()
	if v > was.Finalised {
		if older := l.s.membersBelow(v, was); len(older) > 0 {
			return nil, status.Errorf(codes.FailedPrecondition, "cannot finalise cluster version %d: nodes %s run older builds; upgrade them first",
				v, strings.Join(older, ", "))
		}
		if err := l.s.membersAnswerVersion(ctx, v); err != nil {
			return nil, err
		}
	}
	if err := committed(ctx, l.s.core, fsm.ProposeSetClusterVersion, &raftv1.SetClusterVersion{Version: v}, slog.LevelWarn,
		"cluster version set", "version", v, "was", was.Finalised); err != nil {
		return nil, err
	}
	return l.s.clusterVersion(), nil
}

// membersAnswerVersion probes every other member and refuses, naming them, those that do not
// answer or answer with a build below version v.
func (s *clusterService) membersAnswerVersion(ctx context.Context, v uint32) error {
	var problems []string
	for _, m := range s.node.Members() {
		if m.ID == s.node.ID() {
			continue
		}
		ns := &idnodev1.NodeStatus{RaftAddress: m.Address}
		s.probes.answers(ctx, ns)
		switch tag := s.tagOf(m.ID); {
		case !ns.GetReachable():
			problems = append(problems, fmt.Sprintf("%s does not answer", tag))
		case ns.GetSupportedVersion() < v:
			problems = append(problems, fmt.Sprintf("%s answers with build %q, which supports version %d", tag, ns.GetVersion(), max(ns.GetSupportedVersion(), 1)))
		}
	}
	if len(problems) > 0 {
		return status.Errorf(codes.FailedPrecondition, "cannot finalise cluster version %d: %s; finalise once every member runs a build of version %d and answers",
			v, strings.Join(problems, "; "), v)
	}
	return nil
}
