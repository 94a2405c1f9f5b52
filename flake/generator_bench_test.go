package flake

import (
	"errors"
	"math"
	"testing"
	"time"
)

// wideSequence has 2^21 IDs per millisecond, far above what one process
// asks: a benchmark on it measures the cost of a call, never the layout's
// capacity.
var wideSequence = Layout{Epoch: customEpoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 1, SequenceBits: 21}

func newBenchGenerator(b *testing.B, l Layout) *Generator {
	b.Helper()
	now := time.Now()
	lease := Lease{Worker: 1, MinTick: -1, MaxTick: l.MaxTick(), ValidUntil: now.Add(24 * time.Hour)}
	return mustNew(b, l, lease, Options{})
}

// BenchmarkNext: one goroutine on the wall clock. WideSequence is the cost
// of a call; DefaultLayout is the sustained rate of the real layout, which
// caps it at 4096 IDs per ms: past the borrow bound the caller waits for
// the clock, as an application would. Its borrow (1 s, about 4 M IDs at
// full rate) is used up before timing starts, or the burst would flatter
// the sustained rate.
func BenchmarkNext(b *testing.B) {
	b.Run("WideSequence", func(b *testing.B) {
		g := newBenchGenerator(b, wideSequence)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DefaultLayout", func(b *testing.B) {
		g := newBenchGenerator(b, DefaultLayout())
		for {
			_, err := g.Next()
			if errors.Is(err, ErrClockBehind) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			for {
				_, err := g.Next()
				if err == nil {
					break
				}
				if !errors.Is(err, ErrClockBehind) {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "M-IDs/s")
	})
}

func BenchmarkNextParallel(b *testing.B) {
	g := newBenchGenerator(b, wideSequence)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// latencyBatch is how many calls BenchmarkNextLatency times together.
const latencyBatch = 4

// BenchmarkNextLatency reports the tail latency of one call. Method: calls
// are timed in batches of latencyBatch with time.Now, whose differences use
// the monotonic clock; one clock read per batch spreads the timer's own
// cost (about as much as a call: both read the clock) over several calls.
// Each batch's duration goes into a histogram of 1 ns buckets (bounded
// memory, no sorting). Out come p99.9-ns/call (and p99, p50), percentiles
// of the batches' mean per call, and p99.9-ns/batch, the 99.9th percentile
// of whole batches: an upper bound on the 99.9th percentile of single
// calls, since no call takes longer than the batch it is in. On a busy
// machine the p99.9 measures the scheduler: a goroutine descheduled inside
// a batch adds tens of µs to it.
func BenchmarkNextLatency(b *testing.B) {
	g := newBenchGenerator(b, wideSequence)
	var perCall, perBatch latencyHistogram
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		for range latencyBatch {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
		d := time.Since(t0).Nanoseconds()
		perCall.add(d / latencyBatch)
		perBatch.add(d)
	}
	b.ReportMetric(float64(perCall.quantile(0.999)), "p99.9-ns/call")
	b.ReportMetric(float64(perBatch.quantile(0.999)), "p99.9-ns/batch")
	b.ReportMetric(float64(perCall.quantile(0.99)), "p99-ns/call")
	b.ReportMetric(float64(perCall.quantile(0.5)), "p50-ns/call")
}

// latencyHistogram counts durations in 1 ns buckets up to 64 µs; longer
// ones share the last bucket (reported as 64 µs, a floor).
type latencyHistogram struct {
	buckets [1 << 16]uint64
	total   uint64
}

func (h *latencyHistogram) add(ns int64) {
	h.buckets[min(max(ns, 0), int64(len(h.buckets)-1))]++
	h.total++
}

// quantile is the smallest duration at or above the q quantile.
func (h *latencyHistogram) quantile(q float64) int64 {
	want := uint64(math.Ceil(q * float64(h.total)))
	var seen uint64
	for ns, n := range h.buckets {
		seen += n
		if seen >= want && seen > 0 {
			return int64(ns)
		}
	}
	return int64(len(h.buckets) - 1)
}
