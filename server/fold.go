package server

import (
	"context"
	"errors"
	"time"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

const (
	// foldCheckInterval is how often a node whose FSM still compares in lower case looks
	// again, and, when it leads, proposes the move.
	foldCheckInterval = 250 * time.Millisecond
	// foldRetryAfterCollision is how long the leader waits after a move refused because two
	// keys would merge: an operator has to release a claim first, and each attempt is a log
	// entry.
	foldRetryAfterCollision = 10 * time.Minute
)

// ensureFold has the leader move the FSM from lower-case comparison of identity names and
// claimed IDs to NFKC_Casefold (fsm/fold.go): once, right after a new cluster's first
// election, or after an upgrade from a version without it (the leader is upgraded last, so
// every node knows the command; an older one halts on it like on any new command). A state
// where two counters or claims would become one keeps its fold: the leader logs the pair and
// tries again later. It returns once the FSM has moved.
func (s *Server) ensureFold(ctx context.Context) {
	wait := foldCheckInterval
	for s.node.FSM().FoldVersion() != fsm.FoldNFKC {
		wait = foldCheckInterval
		if s.node.IsLeader() {
			_, err := propose(ctx, s.core, fsm.ProposeSetFold, &raftv1.Fold{Version: fsm.FoldNFKC})
			switch {
			case err == nil:
				s.log.Info("identity names and claims now compare under NFKC_Casefold")
			case errors.Is(err, fsm.ErrFoldCollision):
				s.log.Warn("identity names and claims keep comparing in lower case: two would become one under NFKC_Casefold; release one claim (or stop using one name) and the leader tries again",
					"err", err, "retry_in", foldRetryAfterCollision)
				wait = foldRetryAfterCollision
			default:
				s.log.Debug("moving to NFKC_Casefold comparison failed; retrying", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
