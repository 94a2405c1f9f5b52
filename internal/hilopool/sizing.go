package hilopool

import "time"

// Pool sizing. A pool should outlast a cut-off of a few minutes at the tag's traffic, so it
// holds poolTraffic of the numbers the node granted for the tag, as measured, and at least
// poolRanges ranges of the current size (a range lasts one client 30 to 60 s, as the range
// policy doubles a range used up in under 30 s and halves one that took over 60 s). Sized by
// range size alone, a tag that many clients share drains its pool in a fraction of a second
// and every grant waits for a top-up. A refill starts when a pool holds less than half its
// target. Numbers are plentiful (int64) and a dead node's pool is only a gap, so erring large
// costs little.
const (
	poolRanges  = 6
	poolTraffic = 2 * time.Minute
	minPoolSize = 1024
	maxPoolSize = 64 << 20
	// rateWindow is how long a tag's grants are counted before its rate is taken.
	rateWindow = time.Second
	// maxTrackedTags bounds the tags whose rate a node measures (clients choose tags).
	maxTrackedTags = 4096
	// maxSegments bounds the stretches of numbers one pool keeps; the lowest beyond it leave
	// the pool (gaps). Numbers below the ranges clients ask for now stay, as the pool's reserve
	// for a cut-off, up to this bound.
	maxSegments = 32
)

// Ranges from a pool without a quorum. No single call empties a pool that other clients of
// the node need while it is cut off: a range that does not follow a reservation takes at most
// half of what the pool holds when it is whole (the size the caller asked for), and at most a
// cutOffShare of it, but at least cutOffMin numbers, when it is shorter (no quorum to reserve).
const (
	cutOffShare = 4
	cutOffMin   = 32
)

// poolTarget is the pool size of a tag granted in ranges of size capacity at perSecond
// numbers a second (0: not measured yet).
func poolTarget(capacity int64, perSecond float64) int64 {
	want := max(float64(poolRanges*capacity), perSecond*poolTraffic.Seconds())
	return int64(min(max(want, minPoolSize), maxPoolSize))
}

// grantRate measures the numbers a tag's pool grants a second.
type grantRate struct {
	since     time.Time // start of the window being counted
	granted   int64     // numbers granted in it
	perSecond float64   // over the last window that ended; 0 until one has
}

// add counts n numbers granted at now, and takes the rate when the window is over.
func (r *grantRate) add(n int64, now time.Time) {
	if r.since.IsZero() {
		r.since = now
	}
	r.granted += n
	if d := now.Sub(r.since); d >= rateWindow {
		r.perSecond = float64(r.granted) / d.Seconds()
		r.since, r.granted = now, 0
	}
}
