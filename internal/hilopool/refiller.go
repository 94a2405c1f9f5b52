package hilopool

import (
	"context"
	"sync"
	"time"
)

const (
	refillTimeout  = 5 * time.Second
	refillQueueLen = 256
)

// refiller tops pools up in the background, one reservation at a time, so a busy tag's callers
// are granted from the pool and never wait for the log. On a node without a quorum the
// reservations fail; the pool then lasts as long as its numbers do.
type refiller struct {
	mu      sync.Mutex
	pending map[Key]int64      // key → the range size it was last granted at
	stats   map[Key]*poolStats // at most maxTrackedTags; the others are sized by range size alone
	wake    chan struct{}
	// reserving serialises the reservations of each pool (lock).
	reserving sync.Map // Key → chan struct{} of capacity 1, holding a value while locked
}

// poolStats is what a node knows of a pool besides its numbers: since it started, how fast
// the pool grants, the range size it last granted, and when the cluster last topped it up.
type poolStats struct {
	rate     grantRate
	capacity int64
	toppedUp time.Time
	// line is the highest number a grant was asked to lie above: numbers at or below it are
	// the pool's reserve for a cut-off, and a top-up counts only the numbers above it.
	line int64
}

func newRefiller() *refiller {
	return &refiller{pending: make(map[Key]int64), stats: make(map[Key]*poolStats), wake: make(chan struct{}, 1)}
}

// statsOf returns key's stats, and creates them if there is room for them. r.mu is held.
func (r *refiller) statsOf(key Key) *poolStats {
	st := r.stats[key]
	if st == nil && len(r.stats) < maxTrackedTags {
		st = &poolStats{}
		r.stats[key] = st
	}
	return st
}

// toppedUp records that the cluster added numbers to key's pool at now.
func (r *refiller) toppedUp(key Key, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.statsOf(key); st != nil {
		st.toppedUp = now
	}
}

// lock takes key's reservation lock and returns its unlock: one reservation of a pool at a
// time, so reservations are added in the order the log made them. It gives up when ctx ends
// first: a caller need not wait out a reservation it will not be granted from.
func (r *refiller) lock(ctx context.Context, key Key) (unlock func(), err error) {
	m, _ := r.reserving.LoadOrStore(key, make(chan struct{}, 1))
	held := m.(chan struct{})
	select {
	case held <- struct{}{}:
		return func() { <-held }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ask records a grant of n numbers from key's pool, in a range of size capacity asked to lie
// above above, and queues key for a look.
func (r *refiller) ask(key Key, capacity, n, above int64, now time.Time) {
	r.mu.Lock()
	if st := r.statsOf(key); st != nil {
		st.rate.add(n, now)
		st.capacity = capacity
		st.line = max(st.line, above)
	}
	if len(r.pending) < refillQueueLen {
		r.pending[key] = max(r.pending[key], capacity)
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// target is the size key's pool should have for ranges of size capacity at its measured rate.
func (r *refiller) target(key Key, capacity int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var perSecond float64
	if st := r.stats[key]; st != nil {
		perSecond = st.rate.perSecond
	}
	return poolTarget(capacity, perSecond)
}

// line is key's line (poolStats.line), 0 for a pool it does not track.
func (r *refiller) line(key Key) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.stats[key]; st != nil {
		return st.line
	}
	return 0
}

// PoolState is what a node's pool of a tag holds and how it is kept, for ListHiLo.
type PoolState struct {
	Remaining int64     // numbers not yet granted
	Target    int64     // the size it is topped up to; 0 when it granted nothing since start
	ToppedUp  time.Time // when the cluster last added numbers; zero: not since start
}

// State is key's pool as it stands.
func (g *Granter) State(key Key) PoolState {
	key = key.folded()
	out := PoolState{Remaining: g.cfg.Pools.Remaining(key)}
	var capacity int64
	capacity, out.ToppedUp = g.refills.seen(key)
	if capacity > 0 {
		out.Target = g.refills.target(key, capacity)
	}
	return out
}

// seen returns the range size that key's pool last granted and when the cluster last topped it
// up, or zeros for a pool it does not track.
func (r *refiller) seen(key Key) (capacity int64, toppedUp time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.stats[key]; st != nil {
		return st.capacity, st.toppedUp
	}
	return 0, time.Time{}
}

func (r *refiller) take() map[Key]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.pending
	r.pending = make(map[Key]int64)
	return out
}

// Refill runs until ctx ends: each pool asked about that holds less than half its target
// gets topped up to the target. It returns once the reservations whose callers gave up have
// landed too.
func (g *Granter) Refill(ctx context.Context) {
	defer g.landing.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.refills.wake:
		}
		for key, capacity := range g.refills.take() {
			g.refill(ctx, key, capacity)
		}
	}
}

// refill tops key's pool up to its target when it holds less than half of it above its line
// (the reserve below does not serve the callers of now while the cluster is whole).
func (g *Granter) refill(ctx context.Context, key Key, capacity int64) {
	unlock, err := g.refills.lock(ctx, key)
	if err != nil {
		return
	}
	defer unlock()
	target := g.refills.target(key, capacity)
	left := g.cfg.Pools.RemainingAbove(key, g.refills.line(key))
	if left >= target/2 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, refillTimeout)
	defer cancel()
	if err := g.reserve(ctx, key, target-left); err != nil {
		g.cfg.Logger.Debug("HiLo pool not refilled", "database", key.Database, "tag", key.Tag, "left", left, "err", err)
	}
}
