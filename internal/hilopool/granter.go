package hilopool

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Pools is a node's store of HiLo pools as the Granter uses it: Store, or Store behind the
// cluster's marks.
type Pools interface {
	Add(key Key, low, high int64) error
	Grant(key Key, grantID string, want, least, above int64) (low, high int64, ok bool, err error)
	Return(key Key, grantID string, end, last int64) (bool, error)
	Remaining(key Key) int64
	RemainingAbove(key Key, n int64) int64
}

// Reserver reserves n numbers for key's pool through the cluster (the leader's log) and
// returns them. Its errors reach the caller of Grant as they are.
type Reserver func(ctx context.Context, key Key, n int64) (low, high int64, err error)

// Observer is told what the pools grant and what the cluster adds to them (metrics).
type Observer interface {
	HiLoPoolGrant(database, tag string, n int64)
	HiLoPoolRefill(database, tag string, n int64)
}

// GranterConfig is what a Granter works with.
type GranterConfig struct {
	Pools   Pools
	Reserve Reserver
	// Observer, when set, is told of grants and refills.
	Observer Observer
	Logger   *slog.Logger
	// StoreError (required) turns an error of Pools into the error Grant returns (the
	// server's status table); a Reserver's errors are returned as they are.
	StoreError func(error) error
}

// Granter grants HiLo ranges from a node's pools and keeps them topped up through the
// cluster.
type Granter struct {
	cfg     GranterConfig
	refills *refiller
	// landing is the reservations still running whose caller gave up (grantAfterReserving);
	// Refill returns once they have landed, so a stopping node seals pools that no longer change.
	landing sync.WaitGroup
}

// NewGranter returns a Granter; Refill must run for the pools to be topped up in the
// background.
func NewGranter(cfg GranterConfig) *Granter {
	return &Granter{cfg: cfg, refills: newRefiller()}
}

// Request is a range a caller asks a pool for.
type Request struct {
	// ID is the grant's identity, which a return must present (package hilogrant).
	ID string
	// Capacity is the range's size, from the range policy.
	Capacity int64
	// LastMax is where the caller's previous range ended (0: none). The range lies above it
	// whenever the node can place it there, which it always can with a quorum; a node cut off
	// grants from its numbers below it rather than refuse, and keeps them for that.
	LastMax int64
	// Floor is a seed's floor: no number at or below it is ever granted.
	Floor int64
}

// above is the number the range should lie above.
func (r Request) above() int64 { return max(r.LastMax, r.Floor) }

// Grant grants a range for req from key's pool, at now. ok is false when the pool cannot (none
// for the tag yet and no quorum to reserve one, or nothing left above the floor): the caller
// then reserves through the cluster as before pools.
func (g *Granter) Grant(ctx context.Context, key Key, req Request, now time.Time) (low, high int64, ok bool, err error) {
	// Folded first: "Orders" and "orders" are one pool, with one reservation lock and one rate.
	key = key.folded()
	low, high, ok, err = g.grantWhole(key, req)
	if err != nil {
		return 0, 0, false, g.cfg.StoreError(err)
	}
	if !ok {
		// The first range of a tag this node never served, or a pool without a whole range
		// left above last_max: reserving needs a quorum, now.
		if low, high, ok, err = g.grantAfterReserving(ctx, key, req); err != nil || !ok {
			return 0, 0, false, err
		}
	}
	g.refills.ask(key, req.Capacity, high-low+1, req.above(), now)
	if g.cfg.Observer != nil {
		g.cfg.Observer.HiLoPoolGrant(key.Database, key.Tag, high-low+1)
	}
	return low, high, true, nil
}

// grantWhole grants req's range whole, above its last_max, from key's pool as it stands, when
// that leaves at least as much in the pool: a node that does not know yet that it is cut off
// must not hand its whole pool to one caller.
func (g *Granter) grantWhole(key Key, req Request) (low, high int64, ok bool, err error) {
	if req.Capacity > g.cfg.Pools.Remaining(key)/2 {
		return 0, 0, false, nil
	}
	return g.cfg.Pools.Grant(key, req.ID, req.Capacity, req.Capacity, req.above())
}

// grantAfterReserving grants a whole range from key's pool after topping it up. A background
// refill in flight may have filled the pool meanwhile (then no new reservation). Without a
// quorum to top the pool up, what is left of it still serves, in a shorter range
// (grantCutOff): the client's range policy starts over from that size.
//
// The reservation is the pool's, not the caller's: it runs to its end (at most refillTimeout)
// when the caller gives up first, and its numbers land in the pool. A node's first range of a
// tag waits for the log, which on a busy machine can outlast a client's attempt timeout; the
// client's retry then waits for that same reservation and is granted from it as soon as it
// lands, instead of reserving again while the first reservation, committed but unanswered,
// became a gap of a whole pool.
func (g *Granter) grantAfterReserving(ctx context.Context, key Key, req Request) (low, high int64, ok bool, err error) {
	unlock, err := g.refills.lock(ctx, key)
	if err != nil {
		return 0, 0, false, err
	}
	if low, high, ok, err = g.grantWhole(key, req); err != nil || ok {
		unlock()
		return low, high, ok, g.storeError(err)
	}
	reserved := make(chan error, 1)
	g.landing.Go(func() {
		// The key's reservation lock is held until the numbers are in the pool, so reservations
		// are added in the order the log made them and a retry waits for this one.
		defer unlock()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refillTimeout)
		defer cancel()
		err := g.reserve(rctx, key, g.refills.target(key, req.Capacity))
		if err != nil && ctx.Err() != nil {
			g.cfg.Logger.Debug("HiLo pool not reserved for a caller that gave up", "database", key.Database, "tag", key.Tag, "err", err)
		}
		reserved <- err
	})
	select {
	case err = <-reserved:
	case <-ctx.Done():
		return 0, 0, false, ctx.Err()
	}
	if err != nil {
		if low, high, ok, gerr := g.grantCutOff(key, req); gerr != nil || ok {
			return low, high, ok, g.storeError(gerr)
		}
		return 0, 0, false, err
	}
	// The reservation lies above the tag's Max, so above every last_max the cluster accepts.
	low, high, ok, err = g.cfg.Pools.Grant(key, req.ID, req.Capacity, req.Capacity, req.above())
	return low, high, ok, g.storeError(err)
}

// grantCutOff grants a range from what key's pool holds when the node could not reserve (no
// quorum): above the caller's last_max if the pool has numbers there, else from below it, above
// the floor all the same. The numbers are unique wherever they lie; only the order is lost, and
// only while the node is cut off. The range is at most a cutOffShare of the pool (at least
// cutOffMin numbers), whatever size the caller asks for, so that one call does not take what
// the node's other clients need to keep going.
func (g *Granter) grantCutOff(key Key, req Request) (low, high int64, ok bool, err error) {
	n := min(req.Capacity, max(g.cfg.Pools.Remaining(key)/cutOffShare, cutOffMin))
	for _, above := range []int64{req.above(), req.Floor} {
		if low, high, ok, err = g.cfg.Pools.Grant(key, req.ID, n, 1, above); err != nil || ok {
			return low, high, ok, err
		}
	}
	return 0, 0, false, nil
}

// storeError returns StoreError(err), or nil when err is nil.
func (g *Granter) storeError(err error) error {
	if err == nil {
		return nil
	}
	return g.cfg.StoreError(err)
}

// reserve reserves n numbers for key's pool through the cluster and adds them to the pool.
// The caller holds the key's reservation lock (refiller.lock).
// Numbers the log reserved whose answer was lost are a gap, never granted by anyone.
func (g *Granter) reserve(ctx context.Context, key Key, n int64) error {
	low, high, err := g.cfg.Reserve(ctx, key, n)
	if err != nil {
		return err
	}
	if err := g.cfg.Pools.Add(key, low, high); err != nil {
		return g.cfg.StoreError(err)
	}
	g.refills.toppedUp(key, time.Now())
	if g.cfg.Observer != nil {
		g.cfg.Observer.HiLoPoolRefill(key.Database, key.Tag, high-low+1)
	}
	return nil
}
