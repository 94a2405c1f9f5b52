package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Applier proposes a command through Raft and returns the FSM's answer (cluster.Node).
type Applier interface {
	Apply(ctx context.Context, cmd []byte) (any, error)
}

// RaftCommitter commits a batch as one IdentityBatch log entry. Use it on the leader.
type RaftCommitter struct {
	Applier Applier
	// Now stamps entries for the FSM's request-id expiry; time.Now when nil.
	Now func() time.Time
}

// Commit implements Committer.
func (c RaftCommitter) Commit(ctx context.Context, incs []*raftv1.IdentityIncrement) ([]Result, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	cmd, err := fsm.Encode(fsm.IdentityBatchCommand, &raftv1.IdentityBatch{Increments: incs, ProposedAtMs: now().UnixMilli()})
	if err != nil {
		return nil, err
	}
	resp, err := c.Applier.Apply(ctx, cmd)
	if err != nil {
		return nil, err
	}
	res, ok := resp.(fsm.IdentityBatchResult)
	if !ok {
		return nil, fmt.Errorf("identity batch answered with %T", resp)
	}
	out := make([]Result, len(res.Ranges))
	for i, r := range res.Ranges {
		out[i] = Result{Range: Range{First: r.First, Last: r.Last, Skipped: r.Skipped}, Err: r.Err}
	}
	return out, nil
}
