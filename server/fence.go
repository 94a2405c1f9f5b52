package server

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Fencing (docs/replica-checks.md, "Fencing"). When the leader's replica check finds a member
// whose digest differs from the majority's, it proposes a ReplicaFence for it: replicated
// state, so the member learns it by applying the log, keeps it across restarts, and every later
// leader knows it. A fenced member refuses every call that needs the state, forwarded ones
// included, and does not keep the leadership. It answers the calls an operator needs to see
// and rebuild it, which decide nothing from its state: the leader decides them, or they read
// the member's own Raft view. Removing the member drops its fence; the data dir that joins in
// its place is a new member with a new ID.

// servedWhileFenced are the calls a fenced member still answers, by their public names.
// Every other call of idnode's services (IdService, SeriesService, the rest of
// ClusterService, and the node-to-node Forward service) is refused. Health and reflection are
// not idnode's and are left alone: health says NOT_SERVING instead (watchHealth).
var servedWhileFenced = map[string]bool{
	idnodev1.ClusterService_Status_FullMethodName:             true,
	idnodev1.ClusterService_WhoAmI_FullMethodName:             true,
	idnodev1.ClusterService_ClusterVersion_FullMethodName:     true,
	idnodev1.ClusterService_CheckReplicas_FullMethodName:      true,
	idnodev1.ClusterService_AddNode_FullMethodName:            true,
	idnodev1.ClusterService_RemoveNode_FullMethodName:         true,
	idnodev1.ClusterService_TransferLeadership_FullMethodName: true,
	idnodev1.ClusterService_SetClusterVersion_FullMethodName:  true,
}

// refusedWhileFenced reports whether a fenced member refuses method, a full name on either
// port (a leader half is judged as the public call it stands for).
func refusedWhileFenced(method string) bool {
	if m, ok := leaderMethods[method]; ok {
		method = m.public
	}
	return strings.HasPrefix(method, "/idnode.") && !servedWhileFenced[method]
}

// fenced is this node's fence, and whether the cluster fenced it.
func (s *core) fenced() (*raftv1.ReplicaFence, bool) {
	return s.node.FSM().Fence(s.node.ID())
}

// refuseFenced refuses method with REPLICA_DIVERGED while this node is fenced. A call another
// member relayed to this node as the leader is refused with NO_QUORUM instead: the member that
// relayed it is sound, and REPLICA_DIVERGED, passed on, would have clients skip it; the
// cluster has no leader that serves until this node hands the leadership over.
func (s *core) refuseFenced(ctx context.Context, method string) error {
	if !refusedWhileFenced(method) {
		return nil
	}
	f, ok := s.fenced()
	if !ok {
		return nil
	}
	if forward.FromNode(ctx) {
		return reason.Error(codes.Unavailable, reason.NoQuorum, fmt.Sprintf(
			"the leader %s is fenced (its state diverged) and is handing the leadership over; nothing was done, retry", s.cfg.Tag))
	}
	return reason.Error(codes.Unavailable, reason.ReplicaDiverged, fmt.Sprintf(
		"node %s is fenced: its state digest %s differed from the majority's %s at the replica check of index %d, so it answers nothing that needs the state "+
			"until an operator rebuilds it (docs/replica-checks.md, \"Rebuilding a fenced member\"). Use another node",
		s.cfg.Tag, hex.EncodeToString(f.GetDigest()), hex.EncodeToString(f.GetMajorityDigest()), f.GetIndex()))
}

// refuseFencedStream is refuseFenced for the streaming calls, on either port.
func (s *core) refuseFencedStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := s.refuseFenced(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return handler(srv, ss)
}

// fenceDiverged proposes a fence for each member the check found differing from a majority's
// digest and not fenced yet; members is the Raft members the check asked, in out.Members'
// order. Without a majority digest nobody is fenced: the leader's own digest is no evidence
// against another's. A fenced leader fences nobody else, and below fsm.FenceVersion nobody is
// fenced (an older member would halt on the command).
func (c *replicaCheck) fenceDiverged(ctx context.Context, out *idnodev1.ReplicaCheck, members []cluster.Member) {
	f := c.core.node.FSM()
	if len(out.MajorityDigest) == 0 || f.FinalisedVersion() < fsm.FenceVersion {
		return
	}
	if _, ok := c.core.fenced(); ok {
		return
	}
	for i, d := range out.Members {
		id := members[i].ID
		if d.Verdict != verdictDiffers {
			continue
		}
		if _, ok := f.Fence(id); ok {
			continue
		}
		_, err := propose(ctx, c.core, fsm.ProposeFenceReplica, &raftv1.ReplicaFence{
			Id: id, Tag: d.Tag, Index: out.Index, Digest: d.Digest, MajorityDigest: out.MajorityDigest, AtMs: c.core.cfg.Now().UnixMilli(),
		})
		if err != nil {
			c.core.log.Error("could not fence a member whose state diverged; the next check tries again", "member", d.Tag, "err", err)
			continue
		}
		c.core.log.Error("fenced a member whose state diverged: it refuses calls until it is rebuilt (docs/replica-checks.md)", "member", d.Tag, "index", out.Index)
	}
}

// fencedLeaderCheckEvery is how often a node looks whether it leads while fenced: raft may
// elect a fenced member (its log is as good as anyone's), and it hands the leadership on.
const fencedLeaderCheckEvery = healthInterval

// keepFencedFromLeading hands the leadership to an unfenced voter whenever this node leads
// while fenced, until ctx ends. Meanwhile it refuses the calls (refuseFenced), so the time it
// leads costs callers a retry elsewhere, never an answer from its state.
func (s *core) keepFencedFromLeading(ctx context.Context) {
	t := time.NewTicker(fencedLeaderCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.node.IsLeader() {
			continue
		}
		if _, ok := s.fenced(); !ok {
			continue
		}
		to, ok := s.unfencedVoter()
		if !ok {
			s.log.Error("this node leads while fenced, and no other voter is unfenced to take over")
			continue
		}
		s.log.Warn("this node leads while fenced: handing the leadership over", "to", s.tagOf(to.ID))
		if err := s.node.TransferLeadership(to); err != nil {
			s.log.Warn("handing the leadership of a fenced node over failed; trying again", "to", s.tagOf(to.ID), "err", err)
		}
	}
}

// unfencedVoter is a voter other than this node that the cluster has not fenced.
func (s *core) unfencedVoter() (cluster.Member, bool) {
	f := s.node.FSM()
	for _, m := range s.node.Members() {
		if _, fenced := f.Fence(m.ID); m.Voter && m.ID != s.node.ID() && !fenced {
			return m, true
		}
	}
	return cluster.Member{}, false
}
