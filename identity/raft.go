package identity

import (
	"context"
	"time"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// RaftCommitter commits a batch as one IdentityBatch log entry. Use it on the leader.
type RaftCommitter struct {
	Applier fsm.Applier
	// Now stamps entries for the FSM's request-id expiry; time.Now when nil.
	Now func() time.Time
}

// Commit implements Committer.
func (c RaftCommitter) Commit(ctx context.Context, incs []*raftv1.IdentityIncrement) ([]Result, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	res, err := fsm.Propose(ctx, c.Applier, fsm.ProposeIdentityBatch, &raftv1.IdentityBatch{Increments: incs, ProposedAtMs: now().UnixMilli()})
	if err != nil {
		return nil, err
	}
	return res.Ranges, nil
}
