// Package identity coalesces identity requests. A Batcher gathers concurrent requests and
// commits them together (package batch): on the leader as one Raft log entry (RaftCommitter),
// so many callers' identities cost one replicated, fsynced write; on a follower as one relay
// call to the leader.
package identity

import (
	"context"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/batch"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Committer commits a batch of increments and answers each, in order. An error means the whole
// batch failed; a per-increment refusal goes in that increment's Result.
type Committer = batch.Committer[*raftv1.IdentityIncrement, Result]

// Result answers one increment: the FSM's answer, handed on as it is.
type Result = fsm.IdentityRange

// Options tune coalescing (batch.Options).
type Options = batch.Options

// DefaultOptions suit a three-node LAN cluster.
var DefaultOptions = batch.DefaultOptions

// The batcher's errors are package batch's, so a caller can test for either name.
var (
	ErrClosed        = batch.ErrClosed
	ErrCommitTimeout = batch.ErrCommitTimeout
)

// Batcher coalesces Next calls into batches for its Committer.
type Batcher struct {
	b *batch.Batcher[*raftv1.IdentityIncrement, Result]
}

// NewBatcher starts the coalescing loop; Close stops it.
func NewBatcher(c Committer, opts Options) *Batcher {
	return &Batcher{b: batch.New(c, opts, func(err error) Result { return Result{Err: err} })}
}

// Next reserves inc.count consecutive values of inc's name in its database. A request id
// makes a retry return the first attempt's values. The result carries how the state that
// applied the increment writes its IDs (Result.Forms); its Err is the error returned.
func (b *Batcher) Next(ctx context.Context, inc *raftv1.IdentityIncrement) (Result, error) {
	res, err := b.b.Do(ctx, inc)
	if err != nil {
		return Result{}, err
	}
	if res.Err != nil {
		return Result{}, res.Err
	}
	return res, nil
}

// NextMany queues many increments at once (a follower's relayed batch) and answers each, in
// order; they join this batcher's batches like any other caller's.
func (b *Batcher) NextMany(ctx context.Context, incs []*raftv1.IdentityIncrement) []Result {
	return b.b.DoMany(ctx, incs)
}

// Close stops the loop; calls queued and not yet proposed fail with ErrClosed.
func (b *Batcher) Close() { b.b.Close() }
