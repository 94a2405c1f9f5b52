package flake

import (
	"fmt"
	"time"
)

// Lease is a worker ID granted to one holder for a range of ticks (idnode
// grants them through Raft). Within one lease the holder owns every ID of
// its worker with a tick in (MinTick, MaxTick]; the FSM makes the ranges of
// successive holders of a worker disjoint, which is what keeps two
// generators from ever minting the same ID.
type Lease struct {
	// Worker is the worker ID, below the layout's MaxWorkers.
	Worker uint64
	// Epoch is the fencing epoch of the grant; a higher epoch for the same
	// worker is a newer grant.
	Epoch uint64
	// MinTick is the tick to mint strictly above: the high-water tick
	// recorded for the worker's previous holder (−1 for a worker never held).
	MinTick int64
	// MaxTick is the last tick to mint at, included. The FSM records it as
	// the worker's high-water before granting; a renewal raises it.
	MaxTick int64
	// ValidUntil is the local time to stop minting: the lease's expiry minus
	// a safety margin. Derive it from time.Now() so that it keeps its
	// monotonic reading: then a step of the wall clock cannot stretch it.
	ValidUntil time.Time
}

// checkLease refuses, wrapped in ErrBadLease, a lease no ID can be minted
// under with layout l (which is valid).
func checkLease(l Layout, lease Lease) error {
	switch {
	case lease.Worker >= 1<<l.WorkerBits:
		return fmt.Errorf("%w: worker %d is outside the layout's 0..%d", ErrBadLease, lease.Worker, uint64(1)<<l.WorkerBits-1)
	case lease.MinTick < -1:
		return fmt.Errorf("%w: MinTick %d is below -1", ErrBadLease, lease.MinTick)
	case lease.MaxTick <= lease.MinTick:
		return fmt.Errorf("%w: MaxTick %d is not above MinTick %d", ErrBadLease, lease.MaxTick, lease.MinTick)
	case lease.MinTick >= l.maxTick():
		return fmt.Errorf("%w: MinTick %d leaves no tick of the layout (last %d)", ErrBadLease, lease.MinTick, l.maxTick())
	case lease.ValidUntil.IsZero():
		return fmt.Errorf("%w: ValidUntil is not set", ErrBadLease)
	}
	return nil
}

// isOlderThan reports whether lease is a stale answer compared with cur: for
// the same grant (worker and epoch), a lower MaxTick or an earlier
// ValidUntil; for the same worker, a lower epoch. Epochs of different
// workers are not compared: the FSM may count them per worker.
func (lease Lease) isOlderThan(cur Lease) bool {
	if lease.Worker != cur.Worker {
		return false
	}
	if lease.Epoch != cur.Epoch {
		return lease.Epoch < cur.Epoch
	}
	return lease.MaxTick < cur.MaxTick || lease.ValidUntil.Before(cur.ValidUntil)
}

// LeaseOfMs is the lease of worker and epoch whose grant (idnode's WorkerLease) lets its
// holder mint at times (Unix ms) strictly above minMs and up to maxMs. MinTick is the tick
// minMs falls in, rounded down, so every tick above it starts after minMs; MaxTick is the
// tick maxMs falls in, rounded down, so no tick starts after maxMs. Successive holders of a
// worker get minMs ≥ the previous maxMs, hence disjoint ticks. A range with no tick of the
// layout in it is ErrBadLease.
func (l Layout) LeaseOfMs(worker, epoch uint64, minMs, maxMs int64, validUntil time.Time) (Lease, error) {
	if err := l.Validate(); err != nil {
		return Lease{}, err
	}
	lease := Lease{Worker: worker, Epoch: epoch, MinTick: max(l.tickOfMs(minMs), -1), MaxTick: l.tickOfMs(maxMs), ValidUntil: validUntil}
	if err := checkLease(l, lease); err != nil {
		return Lease{}, err
	}
	return lease, nil
}

// tickOfMs is the tick Unix ms falls in, rounded down (negative before the epoch), clamped to
// one past the layout's last tick: a time far out must neither overflow nor fit.
func (l Layout) tickOfMs(ms int64) int64 {
	d := time.UnixMilli(ms).Sub(l.Epoch) // saturates at ±292 years
	tick := int64(d / l.Unit)
	if d < 0 && d%l.Unit != 0 {
		tick--
	}
	return min(tick, l.maxTick()+1)
}
