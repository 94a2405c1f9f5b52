// Package flake mints numeric, roughly time-ordered 64-bit IDs in process
// (Snowflake style): a tick of time since an epoch, a worker ID and a
// sequence within the tick, packed into a non-negative int64. The worker ID
// and the range of ticks a generator may use come from a Lease, which idnode
// grants through Raft so that no two holders share a worker and a tick. See
// DESIGN.md for the rules and why they hold.
package flake

import (
	"fmt"
	"math"
	"time"
)

// customEpoch is where DefaultLayout and JSSafeLayout count from: 2026-01-01
// UTC, the year idnode started minting these IDs, so that 41 bits of
// milliseconds last until 2095.
var customEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Layout says how an ID's 63 usable bits are split, from the top: TimeBits
// of ticks (Unit long each) since Epoch, WorkerBits of worker ID, then
// SequenceBits of sequence within a tick. The sign bit is always 0.
type Layout struct {
	Epoch        time.Time
	Unit         time.Duration
	TimeBits     uint
	WorkerBits   uint
	SequenceBits uint
}

// Parts is an ID taken apart by Decompose; Time is the start of its tick.
type Parts struct {
	Tick     int64
	Worker   uint64
	Sequence uint64
	Time     time.Time
}

// String explains the parts, e.g. "2026-03-01T12:00:00.123Z worker 7
// sequence 3 (tick 5140800123)".
func (p Parts) String() string {
	return fmt.Sprintf("%s worker %d sequence %d (tick %d)",
		p.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"), p.Worker, p.Sequence, p.Tick)
}

// DefaultLayout is the classic Snowflake split counted from 2026-01-01 UTC:
// 41 bits of milliseconds (until 2095-09), 1024 workers, 4096 IDs per
// millisecond per worker. IDs use all 63 bits, so they are not exact in a
// JavaScript number once the time part passes 2^53; use JSSafeLayout there.
func DefaultLayout() Layout {
	return Layout{Epoch: customEpoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 10, SequenceBits: 12}
}

// JSSafeLayout keeps every ID at or below 2^53−1, exact in a JavaScript
// number (and JSON parsed by one): 41 bits of milliseconds from 2026-01-01
// UTC (until 2095-09, like DefaultLayout, so a tick means the same in both),
// 5 bits of worker (32 workers) and 7 of sequence (128 IDs per millisecond
// per worker: 128,000 a second sustained, bursts above that borrow ahead).
// The ten bits given up come from the worker and sequence, not the time:
// shrinking time would halve the lifetime per bit, and applications that
// need JavaScript-safe keys rarely need more than 32 minting processes.
func JSSafeLayout() Layout {
	return Layout{Epoch: customEpoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 5, SequenceBits: 7}
}

// Validate reports, wrapped in ErrBadLayout, the first rule l breaks: every
// field set (each bit count at least 1), at most 63 bits in all (the sign
// bit stays 0), Unit at least 1 ms, and the whole span of ticks
// (2^TimeBits × Unit) within a time.Duration (about 292 years), so that no
// tick's time overflows.
func (l Layout) Validate() error {
	switch {
	case l.Epoch.IsZero():
		return fmt.Errorf("%w: Epoch is not set", ErrBadLayout)
	case l.Unit < time.Millisecond:
		return fmt.Errorf("%w: Unit %v is below 1ms", ErrBadLayout, l.Unit)
	case l.TimeBits == 0 || l.WorkerBits == 0 || l.SequenceBits == 0:
		return fmt.Errorf("%w: TimeBits, WorkerBits and SequenceBits must each be at least 1 (got %d, %d, %d)",
			ErrBadLayout, l.TimeBits, l.WorkerBits, l.SequenceBits)
	case l.TimeBits > 63 || l.WorkerBits > 63 || l.SequenceBits > 63 ||
		l.TimeBits+l.WorkerBits+l.SequenceBits > 63:
		return fmt.Errorf("%w: TimeBits+WorkerBits+SequenceBits must be at most 63 (got %d+%d+%d)",
			ErrBadLayout, l.TimeBits, l.WorkerBits, l.SequenceBits)
	case l.Unit > time.Duration(math.MaxInt64>>l.TimeBits):
		return fmt.Errorf("%w: 2^%d ticks of %v do not fit a time.Duration (about 292 years)",
			ErrBadLayout, l.TimeBits, l.Unit)
	}
	return nil
}

// MaxWorkers is how many worker IDs the layout has (0 to MaxWorkers−1), or
// 0 for a layout that fails Validate.
func (l Layout) MaxWorkers() uint64 {
	if l.Validate() != nil {
		return 0
	}
	return 1 << l.WorkerBits
}

// MaxTick is the last tick the layout's time bits hold, or −1 for a layout
// that fails Validate.
func (l Layout) MaxTick() int64 {
	if l.Validate() != nil {
		return -1
	}
	return l.maxTick()
}

func (l Layout) maxTick() int64 { return 1<<l.TimeBits - 1 }

// TickOf is the tick t falls in. A time before the epoch or past the last
// tick is ErrOutOfRange.
func (l Layout) TickOf(t time.Time) (int64, error) {
	if err := l.Validate(); err != nil {
		return 0, err
	}
	// Sub saturates, and the span fits a Duration (Validate), so a time far
	// past the end still lands above maxTick rather than wrapping.
	d := t.Sub(l.Epoch)
	if d < 0 {
		return 0, fmt.Errorf("%w: %v is before the layout's epoch %v", ErrOutOfRange, t, l.Epoch)
	}
	tick := int64(d / l.Unit)
	if tick > l.maxTick() {
		return 0, fmt.Errorf("%w: %v is past the layout's last tick (%v)", ErrOutOfRange, t, l.timeOf(l.maxTick()))
	}
	return tick, nil
}

// Compose packs the parts into an ID; a part outside its field is
// ErrOutOfRange.
func (l Layout) Compose(tick int64, worker, seq uint64) (int64, error) {
	if err := l.Validate(); err != nil {
		return 0, err
	}
	switch {
	case tick < 0 || tick > l.maxTick():
		return 0, fmt.Errorf("%w: tick %d is outside 0..%d", ErrOutOfRange, tick, l.maxTick())
	case worker >= 1<<l.WorkerBits:
		return 0, fmt.Errorf("%w: worker %d is outside 0..%d", ErrOutOfRange, worker, uint64(1)<<l.WorkerBits-1)
	case seq >= 1<<l.SequenceBits:
		return 0, fmt.Errorf("%w: sequence %d is outside 0..%d", ErrOutOfRange, seq, uint64(1)<<l.SequenceBits-1)
	}
	return tick<<(l.WorkerBits+l.SequenceBits) | int64(worker)<<l.SequenceBits | int64(seq), nil
}

// Decompose takes an ID apart, to explain it (which worker, when). A
// negative ID, or one with bits above the layout's, is ErrBadID.
func (l Layout) Decompose(id int64) (Parts, error) {
	if err := l.Validate(); err != nil {
		return Parts{}, err
	}
	bits := l.TimeBits + l.WorkerBits + l.SequenceBits
	if id < 0 || id>>bits != 0 {
		return Parts{}, fmt.Errorf("%w: %d does not fit %d bits", ErrBadID, id, bits)
	}
	tick := id >> (l.WorkerBits + l.SequenceBits)
	return Parts{
		Tick:     tick,
		Worker:   uint64(id>>l.SequenceBits) & (1<<l.WorkerBits - 1),
		Sequence: uint64(id) & (1<<l.SequenceBits - 1),
		Time:     l.timeOf(tick),
	}, nil
}

// timeOf is the start of tick, which must be within 0..maxTick (the span
// fits a Duration, Validate).
func (l Layout) timeOf(tick int64) time.Time {
	return l.Epoch.Add(time.Duration(tick) * l.Unit)
}
