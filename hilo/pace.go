package hilo

import "time"

// A fixed prefetch point (80% of a range) leaves the fetch 20% of the range's life to land in.
// That is plenty once ranges have grown, but while an application's rate grows the server
// doubles each range and the rate doubles too, so every range lasts about as long as the one
// before: a few milliseconds for the small first ones, where 20% is less than a fetch through
// Raft takes, and every caller stalls at the end of each range. The generator therefore also
// measures how fast the current range is used and how long fetches take, and starts the next
// fetch as soon as the range would run out before a fetch started later could land.

// prefetchMargin is how many fetch times ahead the next fetch starts: once the current range
// would run out within this many fetch times at the measured rate. One would be just in time
// for a steady rate; the second covers a rate that doubles while the fetch is on the network,
// and a fetch slower than the ones measured.
const prefetchMargin = 2

// paceChecks is how many times per range (about) a caller measures the rate: often enough to
// see a rate that changed within the range, rarely enough that reading the clock and taking
// the generator's lock stay off the path of nearly every call.
const paceChecks = 16

// checkMask returns the mask for a range of size numbers: the caller that takes a number k
// with k&checkMask == 0 measures the rate. The step is a power of two, so that the test on the
// fast path is one AND.
func checkMask(size int64) int64 {
	step := int64(1)
	for step*2*paceChecks <= size {
		step *= 2
	}
	return step - 1
}

// pace measures how fast a generator's callers take numbers and how long its fetches take.
// g.mu guards it.
type pace struct {
	span *span     // the range being measured: the current one
	k    int64     // numbers taken from it at the last check
	at   time.Time // when
	// rate is the IDs per second taken between the last two checks. Until the current range
	// has had its first check, it is the rate measured on the range before.
	rate float64
	// fetchTime is how long a fetch takes: the slowest recent one, forgotten by an eighth per
	// fetch, so that one quick answer does not make the next prefetch late.
	fetchTime time.Duration
}

// begin starts measuring s, which became the current range at now, and reports whether it
// will run out too soon for a fetch started later, at the rate measured so far.
func (p *pace) begin(s *span, now time.Time) bool {
	p.span, p.k, p.at = s, 0, now
	return p.runsOutWithin(s.size)
}

// check records that k numbers of s were taken at now, and reports whether the numbers left
// will run out too soon for a fetch started later. Checks of a range that is no longer measured,
// or that arrive out of order, measure nothing.
func (p *pace) check(s *span, k int64, now time.Time) bool {
	if s != p.span || k <= p.k {
		return false
	}
	// A clock that did not move (a coarse one, or a burst) counts as one nanosecond: the
	// rate is then high, and a high rate prefetches early, which is the safe side.
	dt := max(now.Sub(p.at), time.Nanosecond)
	p.rate = float64(k-p.k) / dt.Seconds()
	p.k, p.at = k, now
	return p.runsOutWithin(s.size - k)
}

// runsOutWithin reports whether left numbers last less than prefetchMargin fetch times.
func (p *pace) runsOutWithin(left int64) bool {
	return float64(left) < p.rate*prefetchMargin*p.fetchTime.Seconds()
}

// fetched records how long a successful fetch took.
func (p *pace) fetched(took time.Duration) {
	p.fetchTime = max(took, p.fetchTime-p.fetchTime/8)
}
