package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/version"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// versionAllows refuses a command the finalised cluster version does not include: a member on
// an older build would halt on it (exit 3). The message names those members, or says that
// every member supports it and the operator has not finalised yet.
func (s *core) versionAllows(t fsm.CommandType) error {
	need := fsm.VersionOf(t)
	if need <= s.node.FSM().FinalisedVersion() {
		return nil
	}
	cv := s.node.FSM().ClusterVersion()
	if older := s.membersBelow(need, cv); len(older) > 0 {
		return status.Errorf(codes.FailedPrecondition,
			"%s needs cluster version %d, and the cluster is at version %d: nodes %s run older builds; upgrade them, then run idctl cluster version finalise",
			fsm.CommandName(t), need, cv.Finalised, strings.Join(older, ", "))
	}
	return status.Errorf(codes.FailedPrecondition,
		"%s needs cluster version %d, and the cluster is at version %d: every node supports it; run idctl cluster version finalise",
		fsm.CommandName(t), need, cv.Finalised)
}

// membersBelow lists the Raft members (voters and non-voters: both apply the log) whose build
// does not support version v, as "tag (version n, build b)".
func (s *core) membersBelow(v uint32, cv fsm.ClusterVersion) []string {
	var out []string
	for _, m := range s.node.Members() {
		tag := s.tagOf(m.ID)
		nv, ok := cv.Nodes[tag]
		if !ok {
			nv = fsm.NodeVersion{Version: 1}
		}
		if nv.Version >= v {
			continue
		}
		build := nv.Build
		if build == "" {
			build = "older than cluster versions"
		}
		out = append(out, fmt.Sprintf("%s (version %d, build %s)", tag, nv.Version, build))
	}
	return out
}

// joinAllowed refuses a node registering itself with a build older than the finalised cluster
// version: as a member it would halt on the first command it does not know. Builds from before
// cluster versions send no version (version 1). An operator's add (no incarnation) states no
// build and is not checked.
func (s *clusterService) joinAllowed(req *idnodev1.AddNodeRequest) error {
	if req.GetIncarnation() == "" {
		return nil
	}
	have := max(req.GetVersion(), 1)
	if cv := s.node.FSM().ClusterVersion(); have < cv.Finalised {
		return status.Errorf(codes.FailedPrecondition,
			"the cluster is finalised at version %d and this node's build supports version %d: it would halt on the log; start it with a build of version %d or newer",
			cv.Finalised, have, cv.Finalised)
	}
	return nil
}

// versionRecorded reports whether this replica's FSM has this node's build as it is now.
func (s *Server) versionRecorded() bool {
	nv, ok := s.node.FSM().ClusterVersion().Nodes[s.cfg.Tag]
	return ok && nv == fsm.NodeVersion{Version: fsm.CurrentVersion, Build: version.Get().String()}
}

// versionCheckInterval is how often a node checks that its replica of the FSM holds its build.
const versionCheckInterval = 2 * time.Second

// keepVersionRecorded records what this node's build supports in the cluster, once it is
// registered, and again whenever this replica lacks the record, until ctx ends: finalising
// checks the records. A leader of an older build answers UNIMPLEMENTED until an upgraded node
// leads, and a snapshot such a leader sends carries no records.
func (s *Server) keepVersionRecorded(ctx context.Context) {
	req := &raftv1.NodeVersion{Tag: s.cfg.Tag, Id: s.node.ID(), Version: fsm.CurrentVersion, Build: version.Get().String()}
	backoff := 100 * time.Millisecond
	for {
		wait := versionCheckInterval
		if !s.versionRecorded() {
			_, err := forward.Call(s.fwd, ctx, req, forward.Unary, s.recordNodeVersionLocal, viaForward(forwardv1.ForwardClient.RecordNodeVersion))
			if err == nil {
				s.log.Info("cluster version recorded", "supports", fsm.CurrentVersion, "build", req.GetBuild())
				backoff = 100 * time.Millisecond
			} else {
				s.log.Debug("cluster version not recorded yet", "err", err)
				wait, backoff = backoff, min(2*backoff, 5*time.Second)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// recordNodeVersionLocal proposes a node's version on the leader.
func (s *core) recordNodeVersionLocal(ctx context.Context, req *raftv1.NodeVersion) (*raftv1.NodeVersion, error) {
	if _, err := propose(ctx, s, fsm.ProposeNodeVersion, req); err != nil {
		return nil, err
	}
	return req, nil
}

// RecordNodeVersion is the leader's side of a follower's announcement.
func (f forwardService) RecordNodeVersion(ctx context.Context, req *raftv1.NodeVersion) (*raftv1.NodeVersion, error) {
	if !f.node.IsLeader() {
		return nil, f.noQuorum(forward.ErrNoLeader)
	}
	return f.recordNodeVersionLocal(ctx, req)
}
