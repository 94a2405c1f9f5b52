package server

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/reason"
)

// startWait bounds how long a call waits for a node to catch up for the first time since its
// start: twice the gate's wait, as the forwarder waits twice its election wait for a node that
// has never known a leader, since a node's first election starts only after a heartbeat timeout
// (a call right after a single node's start waited 1.01 s for it, and was refused at 1 s).
func (g *catchUpGate) startWait() time.Duration { return 2 * g.wait }

// checkCaughtUp refuses a call a key guards while this node has not caught up since its
// start: a node restarted behind the cluster does not know the keys created meanwhile, the
// first one included, so with no keys applied it would serve anyone, and with older ones it
// would take a deleted key. A node that has not caught up waits for it within startWait,
// then refuses UNAVAILABLE (NOT_CAUGHT_UP): another node can serve the call, and this one will
// once a leader has told it how far the log is committed and it has applied that far. Caught
// up, it waits in the same bound for its start-up replica check (startcheck.go).
func (s *interceptors) checkCaughtUp(ctx context.Context) error {
	g := s.catchUp
	if g.caughtUpOnce.Load() && s.startCheck.agreed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, g.startWait())
	defer cancel()
	// catchUp asks the leader once and waits for this node to apply that far, rather than asking
	// again at every look: under load the leader's commit index moves on between two looks.
	if !g.caughtUpOnce.Load() && !catchUp(ctx, g.caughtUpOnce.Load, g.startTarget, g.appliedSinceStart) {
		return reason.Error(codes.Unavailable, reason.NotCaughtUp,
			"this node has not yet applied what the cluster had committed when it started, so it may not know the cluster's API keys; "+
				"it refuses calls a key guards until it has (a leader must be reachable). Use another node, or retry")
	}
	return s.startCheck.admit(ctx)
}

// startTarget is how far this node must apply to have caught up: the leader's commit index,
// not ok while there is none, or while it is 0 (a leader that has not committed an entry of
// its term yet).
func (g *catchUpGate) startTarget(ctx context.Context) (uint64, bool) {
	target, ok := g.leaderCommitIndex(ctx)
	return target, ok && target > 0
}

// appliedSinceStart records that this node has caught up once it has applied target; it
// reports whether the node has caught up since its start.
func (g *catchUpGate) appliedSinceStart(target uint64) bool {
	if g.node.HasApplied(target) {
		g.caughtUpOnce.Store(true)
	}
	return g.caughtUpOnce.Load()
}
