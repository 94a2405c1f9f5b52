package etag

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
)

// DefaultReserve is how many etags one watermark sync reserves ahead when
// Open is given reserve 0.
const DefaultReserve = 100_000

// Max is the largest etag a Counter hands out: math.MaxInt64
// (9223372036854775807), which has 19 decimal digits like the server-side ID
// format and fits an int64 everywhere the number travels.
const Max uint64 = math.MaxInt64

var (
	// ErrClosed is returned by Next after Close.
	ErrClosed = errors.New("etag: counter is closed")
	// ErrInvalidCount is returned by Next when asked for 0 etags.
	ErrInvalidCount = errors.New("etag: count must be at least 1")
	// ErrExhausted is returned by Next when the request would go past Max;
	// nothing is handed out and the counter is unchanged.
	ErrExhausted = errors.New("etag: counter exhausted (etags are limited to 9223372036854775807)")
	// ErrPersist wraps a failure to make a new watermark durable. The etags
	// of that call are skipped (never handed out); later calls retry.
	ErrPersist = errors.New("etag: cannot persist watermark")
	// ErrCorrupt is returned by Open when the watermark file exists but is
	// not a valid watermark file. The counter refuses to start rather than
	// guess, because guessing low would repeat IDs.
	ErrCorrupt = errors.New("etag: corrupt watermark file")
	// ErrVersion is returned by Open when the watermark file has a format
	// version this code does not know (written by a newer idnode?).
	ErrVersion = errors.New("etag: unsupported watermark file version")
	// ErrLocked is returned by Open when another Counter (in this or another
	// process) has the same watermark file open.
	ErrLocked = errors.New("etag: watermark file is in use by another counter")
)

// Counter hands out etags; safe for concurrent use. The fast path is one
// atomic compare-and-swap (a plain add could wrap around near the top of the
// range and hand out small numbers again).
type Counter struct {
	// next is the next etag to hand out; never above Max+1.
	next atomic.Uint64
	// durable is the highest watermark known to be on stable storage. Only
	// etags <= durable are ever returned.
	durable atomic.Uint64
	closed  atomic.Bool

	start   uint64 // next at Open, for Last
	reserve uint64
	path    string

	mu      sync.Mutex // slow path: moving the watermark, Close
	lock    *os.File   // holds the flock; nil after Close
	persist func(w uint64) error
	// onRaise is told each new durable watermark, under mu (OnRaise); nil if nobody asked.
	onRaise func(w uint64)
}

// Open loads (or creates) the watermark file at path. reserve = how far ahead
// each sync reaches (0 -> DefaultReserve). The directory must exist.
//
// A corrupt or unreadable file is an error that says which file and what to
// do; it is never silently reset to 0 (that would repeat IDs).
func Open(path string, reserve uint64) (*Counter, error) {
	if reserve == 0 {
		reserve = DefaultReserve
	}
	if reserve > Max {
		reserve = Max
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	w, fresh, err := readWatermark(path)
	if err == nil && fresh {
		// Create the file now, so a directory that cannot be written shows
		// up at start rather than at the first server-side ID.
		err = writeWatermark(path, 0)
	}
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	c := &Counter{reserve: reserve, path: path, lock: lock, start: w + 1}
	c.persist = func(w uint64) error { return writeWatermark(c.path, w) }
	c.durable.Store(w)
	c.next.Store(w + 1) // w <= Max, so this is at most Max+1
	return c, nil
}

// Next reserves n >= 1 consecutive etags and returns the first. Blocks only
// when the watermark must move (one fsync covers up to `reserve` numbers, or
// n if larger). If persisting fails the numbers are skipped, an error
// wrapping ErrPersist is returned, and later calls retry persisting.
func (c *Counter) Next(n uint64) (first uint64, err error) {
	if n == 0 {
		return 0, ErrInvalidCount
	}
	if c.closed.Load() {
		return 0, ErrClosed
	}
	for {
		cur := c.next.Load()
		// cur <= Max+1 always, so Max-cur+1 does not underflow.
		if n > Max-cur+1 {
			return 0, fmt.Errorf("%w: asked for %d after %d", ErrExhausted, n, cur-1)
		}
		if c.next.CompareAndSwap(cur, cur+n) {
			first = cur
			break
		}
	}
	last := first + n - 1
	if last <= c.durable.Load() {
		return first, nil
	}
	if err := c.raise(last); err != nil {
		return 0, err
	}
	return first, nil
}

// raise makes a watermark >= last durable before returning nil.
func (c *Counter) raise(last uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return ErrClosed
	}
	if last <= c.durable.Load() {
		return nil // someone else's sync covered us while we waited
	}
	// Cover every etag taken so far (callers queued behind us included),
	// plus reserve more, in one sync.
	hi := c.next.Load() - 1 // >= last, <= Max
	w := Max
	if c.reserve <= Max-hi {
		w = hi + c.reserve
	}
	if err := c.persist(w); err != nil {
		return fmt.Errorf("%w %d to %s (etags up to %d skipped, will retry): %w",
			ErrPersist, w, c.path, last, err)
	}
	if c.onRaise != nil {
		c.onRaise(w) // before durable moves: no etag above the old watermark is out yet
	}
	c.durable.Store(w)
	return nil
}

// OnRaise makes f be told each new watermark once it is on disk and before any etag above the
// previous one is handed out, one at a time and in order (f runs under the counter's lock:
// callers that need a new watermark wait for it). The node publishes the watermark to the
// cluster with it, so that an older copy of the file costs a gap, never a repeat. Call it
// before the first Next.
func (c *Counter) OnRaise(f func(w uint64)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onRaise = f
}

// Watermark is the durable watermark: no etag above it was handed out.
func (c *Counter) Watermark() uint64 { return c.durable.Load() }

// SkipThrough makes every etag up to and including w one this counter never hands out, durably:
// the cluster's record says an older run of this node may have handed them out (its file was
// replaced by an older copy). Etags already above w are not affected.
func (c *Counter) SkipThrough(w uint64) error {
	if w > Max {
		return fmt.Errorf("%w: cannot skip through %d", ErrExhausted, w)
	}
	for {
		cur := c.next.Load()
		if cur > w || c.next.CompareAndSwap(cur, w+1) {
			break
		}
	}
	return c.raise(w)
}

// Last is the highest etag handed out so far by this process (0 if none) —
// for status/metrics. Etags still waiting for their watermark to become
// durable are not counted.
func (c *Counter) Last() uint64 {
	v := c.next.Load() - 1
	if d := c.durable.Load(); v > d {
		v = d
	}
	if v < c.start {
		return 0
	}
	return v
}

// Close persists nothing extra (the watermark is already durable) but
// releases the file; Next after Close returns ErrClosed. Calling Close again
// is a no-op.
func (c *Counter) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Swap(true) {
		return nil
	}
	err := c.lock.Close() // closing the descriptor drops the flock
	c.lock = nil
	if err != nil {
		return fmt.Errorf("etag: closing lock file %s.lock: %w", c.path, err)
	}
	return nil
}
