// Package identity coalesces identity requests. A Batcher gathers concurrent requests and
// commits them together: on the leader as one Raft log entry (RaftCommitter), so many callers'
// identities cost one replicated, fsynced write; on a follower as one relay call to the leader.
package identity

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Committer commits a batch of increments and answers each, in order. An error means the whole
// batch failed; a per-increment refusal goes in that increment's Result.
type Committer interface {
	Commit(ctx context.Context, incs []*raftv1.IdentityIncrement) ([]Result, error)
}

// Result answers one increment: the FSM's answer, handed on as it is.
type Result = fsm.IdentityRange

// Errors of the batcher.
var (
	// ErrClosed means the batcher was closed; the node is shutting down.
	ErrClosed = errors.New("identity batcher is closed: node shutting down")

	// ErrCommitTimeout is the cause of a batch's commit running past CommitTimeout: the
	// cluster did not commit it in time (no quorum), which no caller's deadline explains.
	ErrCommitTimeout = errors.New("the identity batch was not committed within its time bound")
)

// Options tune coalescing.
type Options struct {
	// MaxBatch caps increments per log entry; 1 turns coalescing off.
	MaxBatch int
	// MaxInFlight caps batches committed but not yet answered. While all are in flight new
	// requests queue up, and the next batch takes them all: this is what makes batches grow
	// with load, with no timer adding latency when the load is light. One suits the leader
	// (group commit): every extra entry in flight costs each follower its own fsynced write,
	// and measured slower at every concurrency (docs/BENCHMARKS.md).
	MaxInFlight int
	// CommitTimeout bounds one batch's commit; the caller's own deadline usually ends sooner.
	CommitTimeout time.Duration
	// OnBatch, when set, is told the size of every batch before it is committed (metrics).
	OnBatch func(size int)
}

// uncoalescedInFlight lets that many single-request entries be in flight when coalescing is
// off (MaxBatch 1), so raft still sees every caller's request at once.
const uncoalescedInFlight = 1024

// DefaultOptions suit a three-node LAN cluster.
var DefaultOptions = Options{MaxBatch: 4096, MaxInFlight: 1, CommitTimeout: 10 * time.Second}

// Batcher coalesces Next calls into batches for its Committer.
type Batcher struct {
	commit   Committer
	opts     Options
	queue    chan *request
	inFlight chan struct{}
	done     chan struct{}
	stopped  chan struct{}

	closeMu sync.RWMutex
	closed  bool
}

type request struct {
	ctx   context.Context
	inc   *raftv1.IdentityIncrement
	reply chan Result
}

// NewBatcher starts the coalescing loop; Close stops it.
func NewBatcher(c Committer, opts Options) *Batcher {
	if opts.MaxBatch < 1 {
		opts.MaxBatch = DefaultOptions.MaxBatch
	}
	if opts.MaxInFlight < 1 {
		opts.MaxInFlight = DefaultOptions.MaxInFlight
		if opts.MaxBatch == 1 {
			// Without coalescing every request is its own log entry, proposed at once.
			opts.MaxInFlight = uncoalescedInFlight
		}
	}
	if opts.CommitTimeout <= 0 {
		opts.CommitTimeout = DefaultOptions.CommitTimeout
	}
	b := &Batcher{
		commit:   c,
		opts:     opts,
		queue:    make(chan *request, opts.MaxBatch),
		inFlight: make(chan struct{}, opts.MaxInFlight),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go b.run()
	return b
}

// Next reserves inc.count consecutive values of inc's name in its database. A request id
// makes a retry return the first attempt's values.
func (b *Batcher) Next(ctx context.Context, inc *raftv1.IdentityIncrement) (docid.IdentityBlock, error) {
	r := &request{ctx: ctx, inc: inc, reply: make(chan Result, 1)}
	if err := b.enqueue(ctx, r); err != nil {
		return docid.IdentityBlock{}, err
	}
	select {
	case res := <-r.reply:
		return res.IdentityBlock, res.Err
	case <-ctx.Done():
		// The entry may still commit: the values are then a gap, never handed out twice.
		return docid.IdentityBlock{}, ctx.Err()
	}
}

// NextMany queues many increments at once (a follower's relayed batch) and answers each, in
// order; they join this batcher's batches like any other caller's.
func (b *Batcher) NextMany(ctx context.Context, incs []*raftv1.IdentityIncrement) []Result {
	out := make([]Result, len(incs))
	reqs := make([]*request, 0, len(incs))
	for i, inc := range incs {
		r := &request{ctx: ctx, inc: inc, reply: make(chan Result, 1)}
		if err := b.enqueue(ctx, r); err != nil {
			for j := i; j < len(incs); j++ {
				out[j].Err = err
			}
			break
		}
		reqs = append(reqs, r)
	}
	for i, r := range reqs {
		select {
		case out[i] = <-r.reply:
		case <-ctx.Done():
			out[i].Err = ctx.Err()
		}
	}
	return out
}

// enqueue hands r to the loop. Holding closeMu for reading keeps Close from slipping in
// between the check and the send, which would leave r in the queue with nobody to answer it.
func (b *Batcher) enqueue(ctx context.Context, r *request) error {
	b.closeMu.RLock()
	defer b.closeMu.RUnlock()
	if b.closed {
		return ErrClosed
	}
	select {
	case b.queue <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *Batcher) run() {
	defer close(b.stopped)
	for {
		var first *request
		select {
		case first = <-b.queue:
		case <-b.done:
			return
		}
		select {
		case b.inFlight <- struct{}{}:
		case <-b.done:
			first.reply <- Result{Err: ErrClosed}
			return
		}
		batch := b.collect(first)
		if len(batch) == 0 {
			<-b.inFlight
			continue
		}
		go b.propose(batch)
	}
}

// collect takes first and whatever else is queued right now, dropping callers that gave up.
func (b *Batcher) collect(first *request) []*request {
	batch := make([]*request, 0, min(len(b.queue)+1, b.opts.MaxBatch))
	add := func(r *request) {
		if r.ctx.Err() == nil {
			batch = append(batch, r)
		}
	}
	add(first)
	for len(batch) < b.opts.MaxBatch {
		select {
		case r := <-b.queue:
			add(r)
		default:
			return batch
		}
	}
	return batch
}

func (b *Batcher) propose(batch []*request) {
	defer func() { <-b.inFlight }()
	incs := make([]*raftv1.IdentityIncrement, len(batch))
	for i, r := range batch {
		incs[i] = r.inc
	}
	if b.opts.OnBatch != nil {
		b.opts.OnBatch(len(batch))
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), b.opts.CommitTimeout, ErrCommitTimeout)
	defer cancel()
	results, err := b.commit.Commit(ctx, incs)
	if err == nil && len(results) != len(batch) {
		err = fmt.Errorf("identity batch of %d answered with %d results", len(batch), len(results))
	}
	for i, r := range batch {
		if err != nil {
			r.reply <- Result{Err: err}
		} else {
			r.reply <- results[i]
		}
	}
}

// Close stops the loop; calls queued and not yet proposed fail with ErrClosed.
func (b *Batcher) Close() {
	b.closeMu.Lock()
	b.closed = true
	b.closeMu.Unlock()
	close(b.done)
	<-b.stopped
	for {
		select {
		case r := <-b.queue:
			r.reply <- Result{Err: ErrClosed}
		default:
			return
		}
	}
}
