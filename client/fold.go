package client

import (
	"cmp"
	"context"
	"errors"
	"iter"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/reason"
)

// Folding of concurrent single identities: NextIdentity calls for one value of the same counter
// made at the same time share one NextIdentity call for n values, whose block is split among
// them in arrival order.
//
// Each identity is a Raft round on the cluster, and each call a gRPC exchange both ends pay
// for in CPU; one call for n values costs the cluster about what a call for one costs, so 64
// callers of one counter cost about one call a round instead of 64. The clients in other
// languages fold the same way (clients/python/src/idnode/_fold.py, for one), with one call of a
// counter in flight too.
//
// When a batch returns, the next waits, briefly, for the callers it answered to come back
// (regatherLocked): 64 looping callers then share one call a round, not every other round.
//
// Real-time order holds: a caller only ever joins a batch that has not been sent, so a batch is
// sent after every caller in it arrived, and the cluster numbers it after every call that had
// returned by then. Each batch has a request id of its own, which its retries reuse (a retry
// never burns values). It runs until the earliest deadline among its callers, and stops when
// every one of them has given up, so no batch outlives the callers it serves.
const (
	// foldMaxInFlight is the batches of one counter on the wire at once: while one is in a
	// Raft round the next gathers callers. A second in flight only waited at the leader for
	// the round in progress, and each round carried a third of the callers instead of half:
	// with one, 64 callers got 20–50% more identities a second and a p99 of 11 ms instead of
	// 14 (docs/BENCHMARKS-ROUNDS.md).
	foldMaxInFlight = 1
	// foldMaxBatch is the callers one batch serves at most, far below the server's largest
	// count (100,000), so one batch's answer stays small.
	foldMaxBatch = 1024
	// foldRegatherMax bounds how long the next batch waits for the callers the last one
	// answered to come back (regatherLocked).
	foldRegatherMax = time.Millisecond
)

// identityFold holds the callers of each counter waiting for a batch and the batches in flight.
type identityFold struct {
	// send makes one NextIdentity call for count values under requestID (Client.NextIdentityRaw).
	send func(ctx context.Context, name string, count int64, requestID string) (docid.IdentityBlock, error)
	// tracer, when set, makes each batch a span that links its callers' (foldspan.go).
	tracer trace.Tracer

	mu       sync.Mutex
	counters map[string]*foldCounter // by name as the callers spell it; gone once idle
}

type foldCounter struct {
	queue    []*foldWaiter
	inFlight int
	// regather, when > 0, holds the next batch until the queue is this long or the timer
	// fires: the callers the last batch answered are on their way back (regatherLocked).
	regather int
	timer    *time.Timer
	sending  *foldBatch // the batch sent last, while it is in flight: what the queue waits behind
}

// foldWaiter is one folded caller. done is closed once value or err is set (under the fold's
// lock); batch is the batch it is in, nil while queued.
type foldWaiter struct {
	ctx   context.Context
	done  chan struct{}
	value int64
	err   error
	batch *foldBatch
	left  bool // its caller gave up before an answer
	// refusal is the most telling refusal of the batches it was in, or waited behind, when its
	// caller gave up (reason.MoreTelling): the reason of its error.
	refusal error
}

// foldBatch is the callers one call serves. cancel stops the call; waiting counts the callers
// still waiting for it, and the last one to give up cancels it.
type foldBatch struct {
	waiters  []*foldWaiter
	refusals reason.Record // the call's refusals so far
	cancel   context.CancelFunc
	waiting  int
	deadline time.Time // the earliest of its callers'; zero: none has one
}

func newIdentityFold(send func(ctx context.Context, name string, count int64, requestID string) (docid.IdentityBlock, error)) *identityFold {
	return &identityFold{send: send, counters: map[string]*foldCounter{}}
}

// next returns one value of counter name, taken in one batch with the values that other
// callers ask for at the same moment.
func (f *identityFold) next(ctx context.Context, name string) (docid.IdentityBlock, error) {
	if err := ctx.Err(); err != nil {
		return docid.IdentityBlock{}, status.FromContextError(err).Err()
	}
	w := &foldWaiter{ctx: ctx, done: make(chan struct{})}
	f.mu.Lock()
	c := f.counters[name]
	if c == nil {
		c = &foldCounter{}
		f.counters[name] = c
	}
	c.queue = append(c.queue, w)
	if c.regather > 0 && len(c.queue) >= c.regather {
		c.regather = 0
		c.timer.Stop()
	}
	f.startLocked(name, c)
	f.mu.Unlock()

	select {
	case <-w.done:
	case <-ctx.Done():
		if !f.leave(name, c, w) {
			<-w.done
		}
	}
	if w.err != nil {
		return docid.IdentityBlock{}, w.err
	}
	if w.left {
		return docid.IdentityBlock{}, reason.Ended(ctx.Err(), w.refusal)
	}
	return docid.IdentityBlock{First: w.value, Last: w.value}, nil
}

// leave takes w, whose context ended, out of the queue or its batch, and reports whether it
// left. A caller whose deadline passed while in a batch stays: the batch ends by that deadline
// too (the earliest of its callers') and says more than the deadline would, what the nodes
// answered. A value the batch still reserves for a caller that left is a gap, as for any call
// given up after it was sent.
func (f *identityFold) leave(name string, c *foldCounter, w *foldWaiter) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-w.done: // answered just now
		return false
	default:
	}
	if w.batch != nil && errors.Is(w.ctx.Err(), context.DeadlineExceeded) {
		return false
	}
	if b := cmp.Or(w.batch, c.sending); b != nil {
		w.refusal = reason.MoreTelling(w.refusal, b.refusals.Err())
	}
	f.leaveLocked(name, c, w)
	w.left = true
	return true
}

// startLocked sends the next batch of c, the oldest callers first, if one may go now.
func (f *identityFold) startLocked(name string, c *foldCounter) {
	if len(c.queue) == 0 || c.inFlight >= foldMaxInFlight || c.regather > 0 {
		return
	}
	n := min(len(c.queue), foldMaxBatch)
	b := &foldBatch{waiters: c.queue[:n:n], waiting: n}
	c.queue = c.queue[n:]
	c.inFlight++
	for _, w := range b.waiters {
		w.batch = b
		if d, ok := w.ctx.Deadline(); ok && (b.deadline.IsZero() || d.Before(b.deadline)) {
			b.deadline = d
		}
	}
	// The first caller's values (its credentials, say) go with the call; none of the callers'
	// cancellations does: the batch ends by the earliest deadline or when all have left. The
	// client notes the call's refusals in b.refusals, for a caller who gives up before the end.
	var ctx context.Context
	if base := reason.WithRecord(context.WithoutCancel(b.waiters[0].ctx), &b.refusals); b.deadline.IsZero() {
		ctx, b.cancel = context.WithCancel(base)
	} else {
		ctx, b.cancel = context.WithDeadline(base, b.deadline)
	}
	c.sending = b
	go f.run(ctx, name, c, b)
}

func (f *identityFold) run(ctx context.Context, name string, c *foldCounter, b *foldBatch) {
	sent := time.Now()
	ctx, span := f.startSpan(ctx, b)
	block, err := f.send(ctx, name, int64(len(b.waiters)), newRequestID())
	span.end(err)
	round := time.Since(sent)
	stopped := ctx.Err() != nil
	b.cancel()
	f.mu.Lock()
	defer f.mu.Unlock()
	c.inFlight--
	if c.sending == b {
		c.sending = nil
	}
	answered := f.finishLocked(c, b, block, err, stopped)
	f.regatherLocked(name, c, answered, round)
	f.startLocked(name, c)
	f.dropIdleLocked(name, c)
}

// regatherLocked holds c's next batch until the answered callers of the batch just finished
// are back in the queue, or for a quarter of that batch's round (at most foldRegatherMax).
// Callers that loop, taking one ID after another, come back within microseconds; without the
// wait the next batch would go with only those that queued during the round, and the callers
// just answered would wait a whole round for the one after: two halves taking turns, each
// round carrying half the callers. The wait is bounded, so callers that do not come back
// (one ID a request) cost at most a quarter of a round.
func (f *identityFold) regatherLocked(name string, c *foldCounter, answered int, round time.Duration) {
	want := len(c.queue) + answered
	if answered == 0 || want > foldMaxBatch {
		return
	}
	c.regather = want
	wait := min(round/4, foldRegatherMax)
	if c.timer == nil {
		c.timer = time.AfterFunc(wait, func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			c.regather = 0
			f.startLocked(name, c)
			f.dropIdleLocked(name, c)
		})
		return
	}
	c.timer.Reset(wait)
}

// dropIdleLocked forgets c once nothing of it is queued, in flight or regathering.
func (f *identityFold) dropIdleLocked(name string, c *foldCounter) {
	if len(c.queue) == 0 && c.inFlight == 0 && c.regather == 0 && f.counters[name] == c {
		delete(f.counters, name)
	}
}

// finishLocked hands the batch's answer out: one value to each caller still waiting, in
// arrival order, or the error to all of them. Callers go back to the head of the queue, for
// the next batch, when the block ends before their turn (the cluster ends a block early that
// steps over many claimed values) or when the batch was stopped by another caller's deadline
// while theirs has not passed (a value it may have reserved for them is a gap, never a
// duplicate: the next batch has a request id of its own).
func (f *identityFold) finishLocked(c *foldCounter, b *foldBatch, block docid.IdentityBlock, err error, stopped bool) (answered int) {
	next, stop := iter.Pull(block.All())
	defer stop()
	var back []*foldWaiter
	for _, w := range b.waiters {
		if w.batch != b { // left
			continue
		}
		w.batch = nil
		if err != nil && stopped && outlives(w, b.deadline) {
			w.refusal = reason.MoreTelling(w.refusal, b.refusals.Err())
			back = append(back, w)
			continue
		}
		if err != nil {
			w.err = err
			close(w.done)
			continue
		}
		v, ok := next()
		if !ok {
			back = append(back, w)
			continue
		}
		w.value = v
		close(w.done)
		answered++
	}
	if len(back) > 0 {
		c.queue = append(back, c.queue...)
	}
	return answered
}

// outlives reports whether w's caller may wait past deadline.
func outlives(w *foldWaiter, deadline time.Time) bool {
	d, ok := w.ctx.Deadline()
	return w.ctx.Err() == nil && (!ok || d.After(deadline))
}

// leaveLocked takes w, whose caller gave up, out of the queue or its batch.
func (f *identityFold) leaveLocked(name string, c *foldCounter, w *foldWaiter) {
	if b := w.batch; b != nil {
		w.batch = nil
		if b.waiting--; b.waiting == 0 {
			b.cancel()
		}
		return
	}
	for i, q := range c.queue {
		if q == w {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			break
		}
	}
	f.dropIdleLocked(name, c)
}
