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

// Grant grants a range of capacity numbers above above from key's pool as grantID, at now.
// ok is false when the pool cannot (none for the tag yet and no quorum to reserve one, or
// nothing above above): the caller then reserves through the cluster as before pools.
func (g *Granter) Grant(ctx context.Context, key Key, grantID string, capacity, above int64, now time.Time) (low, high int64, ok bool, err error) {
	// Folded first: "Orders" and "orders" are one pool, with one reservation lock and one rate.
	key = key.folded()
	low, high, ok, err = g.cfg.Pools.Grant(key, grantID, capacity, capacity, above)
	if err != nil {
		return 0, 0, false, g.cfg.StoreError(err)
	}
	if !ok {
		// The first range of a tag this node never served, or a pool without a whole range
		// left: reserving needs a quorum, now.
		if low, high, ok, err = g.grantAfterReserving(ctx, key, grantID, capacity, above); err != nil || !ok {
			return 0, 0, false, err
		}
	}
	g.refills.ask(key, capacity, high-low+1, now)
	if g.cfg.Observer != nil {
		g.cfg.Observer.HiLoPoolGrant(key.Database, key.Tag, high-low+1)
	}
	return low, high, true, nil
}

// grantAfterReserving grants a whole range from key's pool after topping it up. A background
// refill in flight may have filled the pool meanwhile (then no new reservation). Without a
// quorum to top the pool up, what is left of it still serves, in a shorter range: the client's
// range policy starts over from that size.
//
// The reservation is the pool's, not the caller's: it runs to its end (at most refillTimeout)
// when the caller gives up first, and its numbers land in the pool. A node's first range of a
// tag waits for the log, which on a busy machine can outlast a client's attempt timeout; the
// client's retry then waits for that same reservation and is granted from it as soon as it
// lands, instead of reserving again while the first reservation, committed but unanswered,
// became a gap of a whole pool.
func (g *Granter) grantAfterReserving(ctx context.Context, key Key, grantID string, capacity, above int64) (low, high int64, ok bool, err error) {
	unlock, err := g.refills.lock(ctx, key)
	if err != nil {
		return 0, 0, false, err
	}
	if low, high, ok, err = g.cfg.Pools.Grant(key, grantID, capacity, capacity, above); err != nil || ok {
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
		err := g.reserve(rctx, key, g.refills.target(key, capacity))
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
		if low, high, ok, gerr := g.cfg.Pools.Grant(key, grantID, capacity, 1, above); gerr != nil || ok {
			return low, high, ok, g.storeError(gerr)
		}
		return 0, 0, false, err
	}
	low, high, ok, err = g.cfg.Pools.Grant(key, grantID, capacity, capacity, above)
	return low, high, ok, g.storeError(err)
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
