package hilo

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks run against the in-memory fakeSource, which answers at once: what they
// measure is the callers' path, with range fetches happening in the background as they would
// against a cluster. Results and the command are in docs/BENCHMARKS.md.
//
//	go test -run NONE -bench 'NextID|Ceiling' -benchtime 2s -count 5 ./hilo/

var benchGoroutines = []int{1, 8, 64}

// BenchmarkNextID: IDs per second through MultiGenerator.NextID (the path of
// client.Client.NextID: tag lookup, then the generator), with G goroutines sharing one tag.
func BenchmarkNextID(b *testing.B) {
	for _, g := range benchGoroutines {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			m := NewMultiGenerator(newFakeSource())
			defer m.Close(context.Background())
			runParallel(b, g, func() func(context.Context) error {
				return func(ctx context.Context) error {
					_, err := m.NextID(ctx, "orders")
					return err
				}
			})
		})
	}
}

// BenchmarkGeneratorNextID: the same through one Generator, without the tag lookup.
func BenchmarkGeneratorNextID(b *testing.B) {
	for _, g := range benchGoroutines {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			gen, err := NewGenerator(newFakeSource(), "orders")
			if err != nil {
				b.Fatal(err)
			}
			defer gen.Close(context.Background())
			runParallel(b, g, func() func(context.Context) error {
				return func(ctx context.Context) error {
					_, err := gen.NextID(ctx)
					return err
				}
			})
		})
	}
}

// BenchmarkGeneratorAppendNextID: the allocation-free variant, each goroutine appending into
// its own reused buffer — the ceiling without the per-ID string allocation.
func BenchmarkGeneratorAppendNextID(b *testing.B) {
	for _, g := range benchGoroutines {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			gen, err := NewGenerator(newFakeSource(), "orders")
			if err != nil {
				b.Fatal(err)
			}
			defer gen.Close(context.Background())
			runParallel(b, g, func() func(context.Context) error {
				buf := make([]byte, 0, 64) // one per goroutine
				return func(ctx context.Context) error {
					var err error
					buf, err = gen.AppendNextID(ctx, buf[:0])
					return err
				}
			})
		})
	}
}

// runParallel splits b.N calls over g goroutines that start together, each calling the
// function newWorker made for it, and reports IDs/s of wall-clock time.
func runParallel(b *testing.B, g int, newWorker func() func(context.Context) error) {
	ctx := context.Background()
	b.ReportAllocs()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range g {
		n := b.N / g
		if i < b.N%g {
			n++
		}
		f := newWorker()
		wg.Go(func() {
			<-start
			for range n {
				if err := f(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "IDs/s")
}

// BenchmarkNextIDLatency times every MultiGenerator.NextID call (time.Now before and after,
// which costs tens of nanoseconds itself and is therefore kept out of BenchmarkNextID) and
// reports percentiles of the per-call latency.
func BenchmarkNextIDLatency(b *testing.B) {
	for _, g := range benchGoroutines {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			m := NewMultiGenerator(newFakeSource())
			defer m.Close(context.Background())
			runLatency(b, g, func() func(context.Context) error {
				return func(ctx context.Context) error {
					_, err := m.NextID(ctx, "orders")
					return err
				}
			})
		})
	}
}

// BenchmarkGeneratorAppendNextIDLatency: the same for the allocation-free AppendNextID, to
// tell the generator's own tail from the allocator's and the garbage collector's.
func BenchmarkGeneratorAppendNextIDLatency(b *testing.B) {
	for _, g := range benchGoroutines {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			gen, err := NewGenerator(newFakeSource(), "orders")
			if err != nil {
				b.Fatal(err)
			}
			defer gen.Close(context.Background())
			runLatency(b, g, func() func(context.Context) error {
				buf := make([]byte, 0, 64)
				return func(ctx context.Context) error {
					var err error
					buf, err = gen.AppendNextID(ctx, buf[:0])
					return err
				}
			})
		})
	}
}

// runLatency is runParallel with every call timed into a per-goroutine histogram; it reports
// p50, p99, p99.9 and the maximum.
func runLatency(b *testing.B, g int, newWorker func() func(context.Context) error) {
	ctx := context.Background()
	hists := make([]latencyHist, g)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range g {
		n := b.N / g
		if i < b.N%g {
			n++
		}
		h := &hists[i]
		f := newWorker()
		wg.Go(func() {
			<-start
			for range n {
				t0 := time.Now()
				err := f(ctx)
				h.add(time.Since(t0))
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	var all latencyHist
	for i := range hists {
		all.merge(&hists[i])
	}
	b.ReportMetric(float64(all.quantile(0.5)), "p50-ns")
	b.ReportMetric(float64(all.quantile(0.99)), "p99-ns")
	b.ReportMetric(float64(all.quantile(0.999)), "p99.9-ns")
	b.ReportMetric(float64(all.max), "max-ns")
}

// latencyHist counts latencies exactly up to 1 µs (1 ns buckets) and in 16 sub-buckets per
// power of two above (about 6% wide), so any number of calls fits in a few kilobytes.
type latencyHist struct {
	fine   [1024]int64 // [0, 1024) ns
	coarse [54 * 16]int64
	n      int64
	max    time.Duration
}

func (h *latencyHist) add(d time.Duration) {
	h.n++
	h.max = max(h.max, d)
	if d < 0 {
		d = 0
	}
	if d < 1024 {
		h.fine[d]++
		return
	}
	h.coarse[coarseIndex(uint64(d))]++
}

// coarseIndex of v >= 1024: 16 buckets for each [2^k, 2^(k+1)).
func coarseIndex(v uint64) int {
	k := bits.Len64(v) - 1
	return (k-10)*16 + int(v>>(k-4)&15)
}

// coarseUpper is the upper bound (exclusive) of coarse bucket i.
func coarseUpper(i int) int64 {
	k, sub := i/16+10, int64(i%16)
	return (16 + sub + 1) << (k - 4)
}

func (h *latencyHist) merge(o *latencyHist) {
	for i := range h.fine {
		h.fine[i] += o.fine[i]
	}
	for i := range h.coarse {
		h.coarse[i] += o.coarse[i]
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile returns the latency (ns) below which q of the calls fall: exact below 1 µs, the
// upper bound of a ~6% bucket above.
func (h *latencyHist) quantile(q float64) int64 {
	rank := max(int64(q*float64(h.n)+0.5)-1, 0)
	var seen int64
	for i, c := range h.fine {
		if seen += c; seen > rank {
			return int64(i)
		}
	}
	for i, c := range h.coarse {
		if seen += c; seen > rank {
			return min(coarseUpper(i), int64(h.max))
		}
	}
	return int64(h.max)
}

func TestGeneratorLatencyHistogram(t *testing.T) {
	var h latencyHist
	for i := range 1000 {
		h.add(time.Duration(i)) // 0 … 999 ns
	}
	for range 9 {
		h.add(1500 * time.Nanosecond)
	}
	h.add(time.Second)
	if q := h.quantile(0.5); q != 504 {
		t.Errorf("p50 = %d, want 504", q)
	}
	if q := h.quantile(0.995); q < 1500 || q > 1600 {
		t.Errorf("p99.5 = %d, want the 1500 ns bucket", q)
	}
	if q := h.quantile(1); q != int64(time.Second) {
		t.Errorf("p100 = %d, want 1 s", q)
	}
	for _, v := range []uint64{1024, 1500, 2047, 2048, 1 << 40, 1<<63 - 1} {
		i := coarseIndex(v)
		if up := coarseUpper(i); uint64(up) <= v && i < len(h.coarse)-1 {
			t.Errorf("value %d in bucket %d with upper bound %d", v, i, up)
		}
	}
}

func BenchmarkGeneratorFormat(b *testing.B) {
	s := newSpan(1_000_000, 2_000_000, "orders/", "-A")
	b.ReportAllocs()
	for i := range b.N {
		_ = s.format(1_000_000 + int64(i%1_000_000))
	}
}

// The ceilings the generator's fast path is built from, at 8 goroutines: one atomic increment
// of a counter all cores share, and one 16-byte heap allocation (the string of an ID).
var (
	ceilingCounter struct {
		_ [64]byte
		v atomic.Int64
		_ [56]byte
	}
	ceilingSink []byte
)

func BenchmarkCeilingSharedAtomicAdd(b *testing.B) {
	runParallel(b, 8, func() func(context.Context) error {
		return func(context.Context) error {
			ceilingCounter.v.Add(1)
			return nil
		}
	})
}

func BenchmarkCeilingAlloc16(b *testing.B) {
	runParallel(b, 8, func() func(context.Context) error {
		var last []byte
		return func(context.Context) error {
			last = make([]byte, 16)
			if last[0] != 0 {
				ceilingSink = last
			}
			return nil
		}
	})
}
