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
	// MinTick: mint strictly above it. It is the high-water tick recorded
	// for the worker's previous holder (−1 for a worker never held).
	MinTick int64
	// MaxTick: mint up to and including it. The FSM records it as the
	// worker's high-water before granting; a renewal raises it.
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
