package history

import (
	"testing"
	"time"
)

// A quantile is the upper bound of the bucket it falls in: within a bucket's width (19 %)
// above the true one, never below it.
func TestLatencyQuantilesAreWithinABucket(t *testing.T) {
	var l Latency
	for i := 1; i <= 100; i++ {
		l.Observe(time.Duration(i) * time.Millisecond) // p50 is 50 ms, p99 99 ms
	}
	q, ok := l.take(0.5, 0.99)
	if !ok {
		t.Fatal("take found no calls after 100 were observed")
	}
	for i, want := range []time.Duration{50 * time.Millisecond, 99 * time.Millisecond} {
		if q[i] < want || float64(q[i]) > float64(want)*1.19 {
			t.Errorf("quantile %d = %v; want within [%v, %v]", i, q[i], want, time.Duration(float64(want)*1.19))
		}
	}
	if _, ok := l.take(0.5); ok {
		t.Error("a second take found calls; take must start counting anew")
	}
}

// Durations past either end land in the first or last bucket rather than outside the array.
func TestLatencyTakesAnyDuration(t *testing.T) {
	var l Latency
	for _, d := range []time.Duration{-time.Second, 0, time.Nanosecond, 1<<63 - 1} {
		l.Observe(d)
	}
	q, ok := l.take(0.25, 1)
	if !ok || q[0] != minLatency || q[1] != upperBound(latencyBuckets-1) {
		t.Errorf("take = %v, %v; want [%v %v]", q, ok, minLatency, upperBound(latencyBuckets-1))
	}
}
