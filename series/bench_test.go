package series

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// BenchmarkIssueBatch64 applies batches of 64 issues, one write transaction (one fsync) each.
func BenchmarkIssueBatch64(b *testing.B) {
	s := mustNew(b)
	s.create("inv", "INV-{year}-{n:06}", yearly, gapless, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		batch := &raftv1.SeriesIssueBatch{ProposedAtMs: at(2026, 1, 1, 0, 0, 0)}
		for j := 0; j < 64; j++ {
			batch.Issues = append(batch.Issues, issueOf("inv", fmt.Sprintf("%d-%d", i, j)))
		}
		s.inTx(func(tx *Tx) {
			for _, r := range tx.Issue(s.next(), batch) {
				if r.Err != nil {
					b.Fatal(r.Err)
				}
			}
		})
	}
	b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkCaptureRestore streams a journal of 10^4 and 10^5 entries from a Capture straight
// into a Restorer of an empty store (the rebuild path), as a snapshot install does;
// peak-heap-MiB is the largest heap seen while it runs, which must stay flat in the
// journal's length.
func BenchmarkCaptureRestore(b *testing.B) {
	for _, entries := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(entries), func(b *testing.B) { benchmarkCaptureRestore(b, entries) })
	}
}

func benchmarkCaptureRestore(b *testing.B, entries int) {
	src := mustNew(b)
	src.create("inv", "INV-{year}-{n:06}", yearly, gapless, 0)
	for i := 0; i < entries/1000; i++ {
		batch := &raftv1.SeriesIssueBatch{}
		for j := 0; j < 1000; j++ {
			batch.Issues = append(batch.Issues, issueOf("inv", fmt.Sprintf("%d-%d", i, j)))
		}
		src.inTx(func(tx *Tx) { tx.Issue(src.next(), batch) })
	}
	runtime.GC()
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		dst, err := Open(filepath.Join(b.TempDir(), "series.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c, err := src.Capture()
		if err != nil {
			b.Fatal(err)
		}
		r := dst.Restore()
		n := 0
		err = c.Write(func(m proto.Message) error {
			if n++; n%10_000 == 0 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			switch m := m.(type) {
			case *raftv1.SeriesJournalRecord:
				return r.Journal(m)
			case *raftv1.SeriesDefinition:
				return r.Definition(m)
			default:
				return r.Entry(m.(*raftv1.SeriesEntry))
			}
		})
		c.Release()
		if err == nil {
			err = r.Finish()
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := dst.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
