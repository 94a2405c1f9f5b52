// Package batch coalesces concurrent requests into batches: a Batcher gathers what callers
// queue while the batches before are in flight and commits them together, so many callers'
// requests cost one replicated, fsynced Raft entry (identities, series issues) or one relay
// call to the leader.
package batch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idnode/idnode/internal/tracing"
)

// Errors of the batcher.
var (
	// ErrClosed means the batcher was closed; the node is shutting down.
	ErrClosed = errors.New("batcher is closed: node shutting down")

	// ErrCommitTimeout is the cause of a batch's commit running past CommitTimeout: the
	// cluster did not commit it in time (no quorum), which no caller's deadline explains.
	ErrCommitTimeout = errors.New("the batch was not committed within its time bound")
)

// Committer commits a batch of items and answers each, in order. An error means the whole
// batch failed; a per-item refusal goes in that item's answer.
type Committer[In, Out any] interface {
	Commit(ctx context.Context, items []In) ([]Out, error)
}

// Options tune coalescing.
type Options struct {
	// MaxBatch caps items per log entry; 1 turns coalescing off.
	MaxBatch int
	// MaxInFlight caps batches committed but not yet answered. While all are in flight new
	// requests queue up, and the next batch takes them all: this is what makes batches grow
	// with load, with no timer adding latency when the load is light. One suits the leader
	// (group commit): every extra entry in flight costs each follower its own fsynced write.
	// Two in flight cut a relayed item's wait but broke batches up (p50 27 → 1) and were no
	// faster (docs/BENCHMARKS.md, "Where an identity's time goes").
	MaxInFlight int
	// Linger, when > 0, holds a batch that follows one of more than one item for this long
	// before it is collected, so that the callers arriving meanwhile join it. Under load from
	// many callers each round then carries more of them, and a round's fixed cost (an entry
	// fsynced on three nodes, a relay call) is paid less often; after a batch of one (a lone
	// caller, or the Go client's folded call) nothing waits.
	Linger time.Duration
	// CommitTimeout bounds one batch's commit; the caller's own deadline usually ends sooner.
	CommitTimeout time.Duration
	// OnBatch, when set, is told the size of every batch before it is committed (metrics).
	OnBatch func(size int)
	// OnRound, when set, is told when each batch's items were queued, proposed and answered,
	// once its callers have their answers (the commit-round trace: bench_round_test.go in
	// package server). Unset, the batcher reads no clock.
	OnRound func(Round)
	// Tracing, when set, gives each batch whose callers are traced its spans (spans.go): a
	// wait span per caller and one commit span named SpanName. Unset, nothing is traced.
	Tracing  *tracing.Tracing
	SpanName string
}

// Round is one batch's times, for OnRound.
type Round struct {
	// Queued is when each item was queued, in the batch's order; Many says it came in a
	// DoMany (a follower's relayed batch, on the leader).
	Queued []time.Time
	Many   []bool
	// Proposed is when the batch went to the Committer, Answered when it returned.
	Proposed, Answered time.Time
}

// uncoalescedInFlight lets that many single-request entries be in flight when coalescing is
// off (MaxBatch 1), so raft still sees every caller's request at once.
const uncoalescedInFlight = 1024

// DefaultOptions suit a three-node LAN cluster. A Linger of 250 µs gave 64 callers sending
// round-robin to three nodes about 20% more identities a second and a lower p99, with a sixth
// fewer Raft entries; 150 µs did as well, 400 µs and more did worse (docs/BENCHMARKS.md).
var DefaultOptions = Options{MaxBatch: 4096, MaxInFlight: 1, Linger: 250 * time.Microsecond, CommitTimeout: 10 * time.Second}

// Batcher coalesces Do calls into batches for its Committer.
type Batcher[In, Out any] struct {
	commit Committer[In, Out]
	// failed is the answer of an item whose batch failed as a whole, or was never proposed.
	failed   func(error) Out
	opts     Options
	queue    chan *request[In, Out]
	inFlight chan struct{}
	done     chan struct{}
	stopped  chan struct{}

	closeMu sync.RWMutex
	closed  bool
}

type request[In, Out any] struct {
	ctx   context.Context
	item  In
	reply chan Out
	// queued and many are kept for OnRound and Tracing only.
	queued time.Time
	many   bool
}

// New starts the coalescing loop; Close stops it. failed makes the answer of an item that
// was never committed out of why.
func New[In, Out any](c Committer[In, Out], opts Options, failed func(error) Out) *Batcher[In, Out] {
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
	if opts.MaxBatch == 1 {
		opts.Linger = 0 // nobody could join the batch it holds
	}
	if opts.CommitTimeout <= 0 {
		opts.CommitTimeout = DefaultOptions.CommitTimeout
	}
	b := &Batcher[In, Out]{
		commit:   c,
		failed:   failed,
		opts:     opts,
		queue:    make(chan *request[In, Out], opts.MaxBatch),
		inFlight: make(chan struct{}, opts.MaxInFlight),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go b.run()
	return b
}

// Do queues item and waits for its answer. The error is the batcher's (closed, the caller's
// context, a batch that failed as a whole); an item's own refusal is in its answer.
func (b *Batcher[In, Out]) Do(ctx context.Context, item In) (Out, error) {
	var none Out
	r := &request[In, Out]{ctx: ctx, item: item, reply: make(chan Out, 1)}
	b.stamp(r)
	if err := b.enqueue(ctx, r); err != nil {
		return none, err
	}
	select {
	case res := <-r.reply:
		return res, nil
	case <-ctx.Done():
		// The entry may still commit: what it took is then a gap, never handed out twice.
		return none, ctx.Err()
	}
}

// DoMany queues many items at once (a follower's relayed batch) and answers each, in order;
// they join this batcher's batches like any other caller's.
func (b *Batcher[In, Out]) DoMany(ctx context.Context, items []In) []Out {
	out := make([]Out, len(items))
	reqs := make([]*request[In, Out], 0, len(items))
	for i, item := range items {
		r := &request[In, Out]{ctx: ctx, item: item, reply: make(chan Out, 1), many: true}
		b.stamp(r)
		if err := b.enqueue(ctx, r); err != nil {
			for j := i; j < len(items); j++ {
				out[j] = b.failed(err)
			}
			break
		}
		reqs = append(reqs, r)
	}
	for i, r := range reqs {
		select {
		case out[i] = <-r.reply:
		case <-ctx.Done():
			out[i] = b.failed(ctx.Err())
		}
	}
	return out
}

// stamp records when r was queued, for OnRound and the spans.
func (b *Batcher[In, Out]) stamp(r *request[In, Out]) {
	if b.timed() {
		r.queued = time.Now()
	}
}

// enqueue hands r to the loop. Holding closeMu for reading keeps Close from slipping in
// between the check and the send, which would leave r in the queue with nobody to answer it.
func (b *Batcher[In, Out]) enqueue(ctx context.Context, r *request[In, Out]) error {
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

func (b *Batcher[In, Out]) run() {
	defer close(b.stopped)
	last := 0 // the previous batch's size
	for {
		var first *request[In, Out]
		select {
		case first = <-b.queue:
		case <-b.done:
			return
		}
		select {
		case b.inFlight <- struct{}{}:
		case <-b.done:
			first.reply <- b.failed(ErrClosed)
			return
		}
		if last > 1 && b.opts.Linger > 0 && !b.linger() {
			first.reply <- b.failed(ErrClosed)
			return
		}
		batch := b.collect(first)
		last = len(batch)
		if len(batch) == 0 {
			<-b.inFlight
			continue
		}
		go b.propose(batch)
	}
}

// linger waits Linger for callers to join the batch about to be collected; false means the
// batcher was closed meanwhile.
func (b *Batcher[In, Out]) linger() bool {
	t := time.NewTimer(b.opts.Linger)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-b.done:
		return false
	}
}

// collect takes first and whatever else is queued right now, dropping callers that gave up.
func (b *Batcher[In, Out]) collect(first *request[In, Out]) []*request[In, Out] {
	batch := make([]*request[In, Out], 0, min(len(b.queue)+1, b.opts.MaxBatch))
	add := func(r *request[In, Out]) {
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

func (b *Batcher[In, Out]) propose(batch []*request[In, Out]) {
	defer func() { <-b.inFlight }()
	items := make([]In, len(batch))
	for i, r := range batch {
		items[i] = r.item
	}
	if b.opts.OnBatch != nil {
		b.opts.OnBatch(len(batch))
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), b.opts.CommitTimeout, ErrCommitTimeout)
	defer cancel()
	var (
		proposed time.Time
		spans    batchSpans
	)
	if b.timed() {
		proposed = time.Now()
	}
	if b.opts.Tracing != nil {
		ctx, spans = startSpans(ctx, b.opts.Tracing, b.opts.SpanName, batch, proposed)
	}
	results, err := b.commit.Commit(ctx, items)
	if b.timed() {
		answered := time.Now()
		spans.end(answered, err)
		if b.opts.OnRound != nil {
			defer b.traceRound(batch, proposed, answered)
		}
	}
	if err == nil && len(results) != len(batch) {
		err = fmt.Errorf("a batch of %d answered with %d results", len(batch), len(results))
	}
	for i, r := range batch {
		if err != nil {
			r.reply <- b.failed(err)
		} else {
			r.reply <- results[i]
		}
	}
}

// timed says whether the batcher reads the clock: for OnRound or for the spans.
func (b *Batcher[In, Out]) timed() bool { return b.opts.OnRound != nil || b.opts.Tracing != nil }

// traceRound tells OnRound of a batch whose callers have been answered.
func (b *Batcher[In, Out]) traceRound(batch []*request[In, Out], proposed, answered time.Time) {
	r := Round{Queued: make([]time.Time, len(batch)), Many: make([]bool, len(batch)), Proposed: proposed, Answered: answered}
	for i, req := range batch {
		r.Queued[i], r.Many[i] = req.queued, req.many
	}
	b.opts.OnRound(r)
}

// Close stops the loop; calls queued and not yet proposed fail with ErrClosed.
func (b *Batcher[In, Out]) Close() {
	b.closeMu.Lock()
	b.closed = true
	b.closeMu.Unlock()
	close(b.done)
	<-b.stopped
	for {
		select {
		case r := <-b.queue:
			r.reply <- b.failed(ErrClosed)
		default:
			return
		}
	}
}
