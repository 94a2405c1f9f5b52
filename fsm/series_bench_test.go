package fsm

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BenchmarkSeriesSnapshot measures a journal of N entries through the FSM's snapshot: writing
// it (Snapshot and Persist to a file), restoring it into a new node (the rebuild), and
// restoring it into the node that wrote it (a restart: the fast path keeps series.db). It
// reports each time, the snapshot's size, and the largest heap seen, which must not grow
// with N. N is 10^4 unless IDNODE_SERIES_BENCH_ENTRIES lists sizes ("1000000,10000000").
func BenchmarkSeriesSnapshot(b *testing.B) {
	sizes := []int{10_000}
	if env := os.Getenv("IDNODE_SERIES_BENCH_ENTRIES"); env != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("IDNODE_SERIES_BENCH_ENTRIES: %q is not a size", f)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchmarkSeriesSnapshot(b, n) })
	}
}

func benchmarkSeriesSnapshot(b *testing.B, entries int) {
	src := newJournaled(b)
	createInvoicesB(b, src)
	const perEntry = 1000 // issues per log entry, so the journal builds in reasonable time
	for done := 0; done < entries; done += perEntry {
		batch := &raftv1.SeriesIssueBatch{ProposedAtMs: year2026}
		for j := range min(perEntry, entries-done) {
			batch.Issues = append(batch.Issues, &raftv1.SeriesIssue{Series: "inv", RequestId: fmt.Sprintf("r-%d-%d", done, j),
				DocumentHash: make([]byte, 32), Fields: []*raftv1.SeriesField{{Key: "customer", Value: "c-" + strconv.Itoa(j)}, {Key: "total", Value: "118.00"}},
				IssuedBy: "api_key:0123456789abcdef"})
		}
		src.index++
		data, err := Encode(SeriesIssueBatchCommand, batch)
		if err != nil {
			b.Fatal(err)
		}
		if out := src.Apply(&raft.Log{Index: src.index, Type: raft.LogCommand, Data: data}); out == nil {
			b.Fatal("no answer")
		} else if err, ok := out.(error); ok {
			b.Fatal(err)
		}
	}
	path := filepath.Join(b.TempDir(), "snapshot")
	var peak atomic.Uint64
	stop := sampleHeap(&peak)
	defer stop()
	for b.Loop() {
		start := time.Now()
		snap, err := src.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := snap.Persist(fileSink{f}); err != nil {
			b.Fatal(err)
		}
		written := time.Since(start)
		st, _ := os.Stat(path)

		dst := newJournaled(b)
		start = time.Now()
		mustRestoreFile(b, dst.FSM, path)
		rebuilt := time.Since(start)

		start = time.Now()
		mustRestoreFile(b, src.FSM, path)
		kept := time.Since(start)

		b.ReportMetric(written.Seconds(), "write-s")
		b.ReportMetric(rebuilt.Seconds(), "rebuild-s")
		b.ReportMetric(kept.Seconds(), "restart-s")
		b.ReportMetric(float64(st.Size())/(1<<20), "snapshot-MiB")
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

func createInvoicesB(b *testing.B, j *journaled) {
	b.Helper()
	data, err := Encode(CreateSeriesCommand, &raftv1.CreateSeries{Name: "INV", Format: "INV-{n:09}", ProposedAtMs: year2026})
	if err != nil {
		b.Fatal(err)
	}
	j.index++
	if _, ok := j.Apply(&raft.Log{Index: j.index, Type: raft.LogCommand, Data: data}).(*raftv1.SeriesDefinition); !ok {
		b.Fatal("CreateSeries failed")
	}
}

func mustRestoreFile(b *testing.B, f *FSM, path string) {
	b.Helper()
	r, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Restore(r); err != nil {
		b.Fatal(err)
	}
}

// sampleHeap records the largest live heap every 20 ms until stop.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}

// fileSink is a raft.SnapshotSink writing to a file.
type fileSink struct{ *os.File }

func (fileSink) ID() string      { return "bench" }
func (s fileSink) Cancel() error { return s.Close() }
