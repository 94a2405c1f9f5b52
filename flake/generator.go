package flake

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxBorrow is Options.MaxBorrow when it is left 0.
const DefaultMaxBorrow = time.Second

// Options tune a Generator; the zero value is the defaults.
type Options struct {
	// Clock is read once per Next; default time.Now. Tests inject one.
	Clock func() time.Time
	// MaxBorrow is how far ahead of the wall clock the tick of a minted ID
	// may run (after a sequence overflow, a clock step back, or a MinTick
	// ahead of this clock); past it Next returns ErrClockBehind. 0 means
	// DefaultMaxBorrow; less than one Unit means no borrowing at all.
	MaxBorrow time.Duration
}

// Generator mints IDs of one layout under one lease at a time. Every ID it
// mints is strictly greater than the one before, across clock steps and
// lease changes. It is safe for any number of goroutines.
type Generator struct {
	layout      Layout
	clock       func() time.Time
	seqBits     uint
	tickShift   uint  // WorkerBits+SequenceBits
	seqMask     int64 // sequence bits all 1
	borrowTicks int64

	mu         sync.Mutex
	lease      Lease
	workerPart int64 // lease.Worker<<seqBits
	maxTick    int64 // lease.MaxTick, or the layout's last tick if lower
	// last is the tick and sequence (tick<<seqBits | seq) of the last ID
	// minted, or of the lease's floor if higher: the next ID is last+1 (the
	// carry moves to the next tick when the sequence is full), or the
	// clock's tick if that is higher.
	last int64
	// minted is the tick and sequence of the last ID minted (−1 before the
	// first). A new grant starts above it and its own MinTick, not above the
	// floor of a lease it replaces: a lease whose MinTick is far ahead of
	// this clock must not hold back the next one.
	minted int64
	// saturations counts the ticks Next moved into ahead of the clock because the sequence
	// of the tick before was used up: where a classic Snowflake minter waits for the next tick.
	saturations atomic.Uint64
}

// New returns a generator minting IDs of layout under lease.
func New(layout Layout, lease Lease, opts Options) (*Generator, error) {
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	if err := checkLease(layout, lease); err != nil {
		return nil, err
	}
	if opts.MaxBorrow < 0 {
		return nil, fmt.Errorf("%w: MaxBorrow %v is negative", ErrBadOptions, opts.MaxBorrow)
	}
	if opts.MaxBorrow == 0 {
		opts.MaxBorrow = DefaultMaxBorrow
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	// Ticks count wall-clock time in every process alike: an epoch taken
	// from time.Now() would otherwise be subtracted on the monotonic clock,
	// blind to the clock steps the rules of Next are about.
	layout.Epoch = layout.Epoch.Round(0)
	g := &Generator{
		layout:      layout,
		clock:       opts.Clock,
		seqBits:     layout.SequenceBits,
		tickShift:   layout.WorkerBits + layout.SequenceBits,
		seqMask:     1<<layout.SequenceBits - 1,
		borrowTicks: int64(opts.MaxBorrow / layout.Unit),
		last:        -1, // below tick 0; install raises it to the lease's floor
		minted:      -1,
	}
	g.install(lease)
	return g, nil
}

// Next mints an ID. Errors mint nothing and change nothing:
// ErrLeaseExpired (renew), ErrLeaseExhausted (renew), ErrClockBehind (wait
// or take a fresh lease), ErrLayoutExhausted.
func (g *Generator) Next() (int64, error) {
	now := g.clock()
	nowTick := g.tickAt(now)

	g.mu.Lock()
	defer g.mu.Unlock()
	if !now.Before(g.lease.ValidUntil) {
		return 0, ErrLeaseExpired
	}
	next := g.last + 1
	if nowTick > next>>g.seqBits {
		if nowTick > g.maxTick { // checked before the shift, which a clock far ahead would overflow
			return 0, g.exhausted()
		}
		next = nowTick << g.seqBits
	}
	tick := next >> g.seqBits
	if tick > g.maxTick {
		return 0, g.exhausted()
	}
	if tick-nowTick > g.borrowTicks {
		return 0, ErrClockBehind
	}
	if tick > nowTick && next&g.seqMask == 0 && next == g.minted+1 {
		g.saturations.Add(1)
	}
	g.last, g.minted = next, next
	return tick<<g.tickShift | g.workerPart | next&g.seqMask, nil
}

// Saturations is how many times Next used up a tick's sequence and went on in the next tick
// ahead of the clock (borrowing it), where a classic Snowflake minter waits: a count that
// climbs says the minter is asked for more IDs a tick than its layout's sequence holds.
func (g *Generator) Saturations() uint64 { return g.saturations.Load() }

// SetLease replaces the lease. A renewal (same worker and epoch) raises
// MaxTick and ValidUntil and keeps minting where it was; a new worker or
// epoch mints from the next tick above both the new MinTick and the last ID
// minted, so IDs keep increasing. (To drop that order, say after the clock
// stepped back an hour, build a new Generator with the fresh lease.) A
// lease older than the one held is ErrStaleLease and changes nothing.
func (g *Generator) SetLease(lease Lease) error {
	if err := checkLease(g.layout, lease); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if lease.isOlderThan(g.lease) {
		return fmt.Errorf("%w: have worker %d epoch %d up to tick %d", ErrStaleLease, g.lease.Worker, g.lease.Epoch, g.lease.MaxTick)
	}
	if lease.Worker != g.lease.Worker || lease.Epoch != g.lease.Epoch {
		// A new grant: above the last ID minted, at the next tick, since
		// another worker at the same tick could sort below it.
		g.last = g.minted | g.seqMask
	}
	g.install(lease)
	return nil
}

// Lease is the lease the generator mints under.
func (g *Generator) Lease() Lease {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lease
}

// install makes lease current and lifts last to its floor; g.mu is held
// (or g is not shared yet) and lease passed checkLease.
func (g *Generator) install(lease Lease) {
	g.lease = lease
	g.workerPart = int64(lease.Worker) << g.seqBits
	g.maxTick = min(lease.MaxTick, g.layout.maxTick())
	// MinTick ≥ −1 and below the layout's last tick: no overflow.
	g.last = max(g.last, lease.MinTick<<g.seqBits|g.seqMask)
}

// exhausted says which bound stopped Next at g.maxTick.
func (g *Generator) exhausted() error {
	if g.maxTick < g.lease.MaxTick {
		return ErrLayoutExhausted
	}
	return ErrLeaseExhausted
}

// tickAt is the tick now falls in, counted from the epoch and rounded down,
// negative before the epoch. Sub saturates at ±292 years and Unit ≥ 1 ms,
// so the result stays far from overflowing any arithmetic in Next.
func (g *Generator) tickAt(now time.Time) int64 {
	d := now.Sub(g.layout.Epoch)
	tick := int64(d / g.layout.Unit)
	if d < 0 && d%g.layout.Unit != 0 {
		tick--
	}
	return tick
}
