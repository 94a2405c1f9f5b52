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
	// Now is the clock that stamps entries for the FSM's request-id expiry; nil means
	// time.Now.
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

// MaxSkipped bounds the claimed values one answer lists as skipped. A block may step over any
// number of claims, and a list of them all once outgrew gRPC's 4 MiB message limit: the values
// were committed, but neither the answer nor any retry's answer could be sent. So a block that
// steps over more claims ends early (docid.IdentityBlock.Within). The FSM, its request table
// and its log keep the whole block, so a retry is cut the same way and an old log replays as
// it did. Since a value takes at most 10 bytes, an answer stays within AnswerBytes.
const MaxSkipped = 64

// AnswerBytes bounds one increment's answer on the wire: MaxSkipped values and the rest.
const AnswerBytes = MaxSkipped*10 + 128
