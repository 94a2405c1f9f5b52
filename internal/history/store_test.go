package history

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)

func valuesOf(t *testing.T, s *Store, series, line string) []float64 {
	t.Helper()
	_, data, err := s.read(series)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range data[0].Lines {
		if l.Name == line {
			return l.Values
		}
	}
	t.Fatalf("series %s has no line %s", series, line)
	return nil
}

// A line that first has a value after some samples is aligned with the sample times: NaN
// before it, and a line without a value in a sample gets NaN there.
func TestStoreAlignsLinesWithTheSampleTimes(t *testing.T) {
	s := NewStore(4)
	s.Record(t0, Sample{DiskFree: {"data_dir": 10}})
	s.Record(t0.Add(time.Second), Sample{DiskFree: {"data_dir": 9}, ClockOffset: {"B": 2}})
	s.Record(t0.Add(2*time.Second), Sample{ClockOffset: {"B": 3}})
	times, _, err := s.read(DiskFree.Name)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{t0.UnixMilli(), t0.UnixMilli() + 1000, t0.UnixMilli() + 2000}; fmt.Sprint(times) != fmt.Sprint(want) {
		t.Errorf("times %v; want %v", times, want)
	}
	if got := valuesOf(t, s, DiskFree.Name, "data_dir"); len(got) != 3 || got[0] != 10 || got[1] != 9 || !math.IsNaN(got[2]) {
		t.Errorf("disk free %v; want [10 9 NaN]", got)
	}
	if got := valuesOf(t, s, ClockOffset.Name, "B"); len(got) != 3 || !math.IsNaN(got[0]) || got[1] != 2 || got[2] != 3 {
		t.Errorf("clock offset of B %v; want [NaN 2 3]", got)
	}
}

// Past its capacity the store drops the oldest sample of the times and of every line alike.
func TestStoreRollsOverAtItsCapacity(t *testing.T) {
	s := NewStore(3)
	for i := range 5 {
		s.Record(t0.Add(time.Duration(i)*time.Second), Sample{CommitRate: {"commit_index": float64(i)}})
	}
	times, _, err := s.read(CommitRate.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 3 || times[0] != t0.Add(2*time.Second).UnixMilli() {
		t.Errorf("times %v; want the last 3, from %d", times, t0.Add(2*time.Second).UnixMilli())
	}
	if got := valuesOf(t, s, CommitRate.Name, "commit_index"); fmt.Sprint(got) != "[2 3 4]" {
		t.Errorf("values %v; want [2 3 4]", got)
	}
}

// A series whose lines come and go (a clock offset per node) keeps at most maxLinesPerSeries.
func TestStoreBoundsTheLinesOfASeries(t *testing.T) {
	s := NewStore(2)
	offsets := map[string]float64{}
	for i := range maxLinesPerSeries + 10 {
		offsets[fmt.Sprintf("N%03d", i)] = float64(i)
	}
	s.Record(t0, Sample{ClockOffset: offsets})
	s.Record(t0.Add(time.Second), Sample{ClockOffset: offsets})
	_, data, err := s.read(ClockOffset.Name)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(data[0].Lines); n != maxLinesPerSeries {
		t.Errorf("%d lines; want %d", n, maxLinesPerSeries)
	}
}

func TestStoreRefusesASeriesItDoesNotKeep(t *testing.T) {
	s := NewStore(2)
	_, _, err := s.read(IDs.Name, "cpu")
	var unknown UnknownSeriesError
	if !errors.As(err, &unknown) || unknown.Name != "cpu" {
		t.Fatalf("read(cpu) = %v; want UnknownSeriesError naming cpu", err)
	}
}

// historyBudget is what the console's history may take: "a few hundred KB at most"
// (docs/console.md, "Graphs of the last hour").
const historyBudget = 256 << 10

// The store at its largest (every series with every line it may have, the ring full) stays
// within historyBudget, and recording more samples does not make it grow.
func TestStoreMemoryIsBounded(t *testing.T) {
	before := heapInUse()
	s := fullStore(DefaultSamples)
	full := heapInUse()
	for i := range 2 * DefaultSamples {
		s.Record(t0.Add(time.Duration(DefaultSamples+i)*DefaultInterval), largestSample())
	}
	later := heapInUse()
	runtime.KeepAlive(s)
	took := int64(full) - int64(before)
	t.Logf("a full store of %d samples takes %d bytes (%.0f KiB); after %d more samples, %d bytes more",
		DefaultSamples, took, float64(took)/1024, 2*DefaultSamples, int64(later)-int64(full))
	if took > historyBudget {
		t.Errorf("a full store takes %d bytes; the budget is %d", took, historyBudget)
	}
	if grew := int64(later) - int64(full); grew > 16<<10 {
		t.Errorf("recording %d more samples grew the heap by %d bytes; a full store must not grow", 2*DefaultSamples, grew)
	}
}

// BenchmarkRecord reports what one sample of every series costs, and the bytes a full
// store holds (store-bytes).
func BenchmarkRecord(b *testing.B) {
	before := heapInUse()
	s := fullStore(DefaultSamples)
	held := heapInUse() - before
	sample := largestSample()
	b.ReportAllocs()
	b.ResetTimer() // which drops reported metrics: store-bytes is reported after it
	for i := range b.N {
		s.Record(t0.Add(time.Duration(i)*time.Second), sample)
	}
	b.ReportMetric(float64(held), "store-bytes")
}

// largestSample has every line a store may hold: a rate per strategy, both latencies, the
// commit rate, the disk and maxLinesPerSeries nodes' clock offsets.
func largestSample() Sample {
	ids := map[string]float64{}
	for _, s := range []string{"identity", "hilo", "server-side", "series", "numeric", "semantic", "guid"} {
		ids[s] = 1
	}
	offsets := map[string]float64{}
	for i := range maxLinesPerSeries {
		offsets[fmt.Sprintf("N%02d", i)] = 1
	}
	return Sample{IDs: ids, IdentityLatency: {"p50": 1, "p99": 2}, CommitRate: {"commit_index": 1},
		DiskFree: {"data_dir": 1}, ClockOffset: offsets}
}

func fullStore(samples int) *Store {
	s := NewStore(samples)
	sample := largestSample()
	for i := range samples {
		s.Record(t0.Add(time.Duration(i)*DefaultInterval), sample)
	}
	return s
}

// heapInUse is the bytes of live objects on the heap. Two collections: what sync.Pool holds
// survives the first (its victim cache), and would count as freed by the next measure.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
