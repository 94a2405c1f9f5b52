package server

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/reason"
)

// startCatchUpWait bounds how long a call waits for a node to catch up for the first time since
// its start: twice catchUpWait, as the forwarder waits twice its election wait for a node that
// has never known a leader, since a node's first election starts only after a heartbeat timeout
// (a call right after a single node's start waited 1.01 s for it, and was refused at 1 s).
const startCatchUpWait = 2 * catchUpWait

// checkCaughtUp refuses a call a key guards while this node has not caught up since its start
// (issue 43): a node restarted behind the cluster does not know the keys created meanwhile, the
// first one included, so with no keys applied it would serve anyone, and with older ones it
// would take a deleted key. A node that has not caught up waits for it within startCatchUpWait,
// then refuses UNAVAILABLE (NOT_CAUGHT_UP): another node can serve the call, and this one will
// once a leader has told it how far the log is committed and it has applied that far.
func (s *Server) checkCaughtUp(ctx context.Context) error {
	if s.caughtUpOnce.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, startCatchUpWait)
	defer cancel()
	t := time.NewTicker(catchUpPoll)
	defer t.Stop()
	for !s.caughtUpSinceStart(ctx) {
		select {
		case <-ctx.Done():
			return reason.Error(codes.Unavailable, reason.NotCaughtUp,
				"this node has not yet applied what the cluster had committed when it started, so it may not know the cluster's API keys; "+
					"it refuses calls a key guards until it has (a leader must be reachable). Use another node, or retry")
		case <-t.C:
		}
	}
	return nil
}
