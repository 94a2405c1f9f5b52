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
	for i := range res.Ranges {
		res.Ranges[i].IdentityBlock = res.Ranges[i].Within(MaxSkipped)
	}
	return res.Ranges, nil
}

// MaxSkipped bounds the claimed values one answer lists as skipped. A block
// may step over any number of claims, and listing them all outgrew gRPC's 4 MiB message limit:
// the values were committed and the answer, and every retry's, could not be sent. So a block
// that steps over more ends early (docid.IdentityBlock.Within); the FSM, its request table
// and its log keep the whole block, so a retry is cut the same way and an old log replays as
// it did. At most 10 bytes a value, an answer stays within AnswerBytes.
const MaxSkipped = 64

// AnswerBytes bounds one increment's answer on the wire: MaxSkipped values and the rest.
const AnswerBytes = MaxSkipped*10 + 128
