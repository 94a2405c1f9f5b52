package history

import (
	"math"
	"sync/atomic"
	"time"
)

// Latencies are counted in buckets a quarter of a power of two wide (about 19 % apart), from
// 1 µs to about an hour, so a quantile read from them is within 19 % of the true one whatever
// the spread, in a fixed 128 counters.
const (
	bucketsPerDoubling = 4
	latencyBuckets     = 32 * bucketsPerDoubling
	minLatency         = time.Microsecond
)

// Latency counts the durations of calls since it was last taken, for a sample's quantiles.
// Observe is safe to call from any goroutine and takes no lock: it runs on the calls' path.
type Latency struct {
	counts [latencyBuckets]atomic.Uint64
}

// Observe counts one call of duration d.
func (l *Latency) Observe(d time.Duration) {
	l.counts[bucketOf(d)].Add(1)
}

// bucketOf is the bucket d falls in: the first holds everything up to minLatency, the last
// everything longer than the rest cover.
func bucketOf(d time.Duration) int {
	if d <= minLatency {
		return 0
	}
	b := int(math.Ceil(math.Log2(float64(d)/float64(minLatency)) * bucketsPerDoubling))
	return min(b, latencyBuckets-1)
}

// upperBound is the longest duration bucket b holds.
func upperBound(b int) time.Duration {
	return time.Duration(float64(minLatency) * math.Exp2(float64(b)/bucketsPerDoubling))
}

// take returns the quantiles qs (0 < q ≤ 1) of the calls counted since the last take, as the
// upper bounds of their buckets, and starts counting anew; ok is false when there were none.
// A call counted while take runs lands in this sample or the next, never in neither.
func (l *Latency) take(qs ...float64) (quantiles []time.Duration, ok bool) {
	var counts [latencyBuckets]uint64
	var total uint64
	for i := range l.counts {
		counts[i] = l.counts[i].Swap(0)
		total += counts[i]
	}
	if total == 0 {
		return nil, false
	}
	quantiles = make([]time.Duration, len(qs))
	for i, q := range qs {
		rank := uint64(math.Ceil(q * float64(total)))
		var seen uint64
		for b, c := range counts {
			seen += c
			if seen >= rank {
				quantiles[i] = upperBound(b)
				break
			}
		}
	}
	return quantiles, true
}
