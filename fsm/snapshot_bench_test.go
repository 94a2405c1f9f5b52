package fsm

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"time"
)

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// benchSnapshot measures f's snapshot, holding n entries (unit names one in the metrics): the
// capture (Snapshot, in raft's FSM goroutine, which applies nothing meanwhile) and the write
// (Persist, in the background), with the bytes written and the heap the two allocate.
func benchSnapshot(b *testing.B, f *FSM, n int, unit string) {
	var capture, write time.Duration
	var size int64
	var allocated uint64
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.ReadMemStats(&before)
		start := time.Now()
		snap, err := f.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		captured := time.Now()
		w := &countingWriter{}
		if err := snap.(*snapshot).write(w); err != nil {
			b.Fatal(err)
		}
		write += time.Since(captured)
		capture += captured.Sub(start)
		runtime.ReadMemStats(&after)
		allocated += after.TotalAlloc - before.TotalAlloc
		size = w.n
		snap.Release()
	}
	runs := float64(b.N)
	b.ReportMetric(float64(capture.Microseconds())/1000/runs, "capture-ms")
	b.ReportMetric(float64(write.Microseconds())/1000/runs, "write-ms")
	b.ReportMetric(float64(size)/float64(n), "snapshot-B/"+unit)
	b.ReportMetric(float64(allocated)/runs/float64(n), "alloc-B/"+unit)
}

// benchRestore measures reading f's snapshot back into a new FSM (raft restores it before the
// node serves).
func benchRestore(b *testing.B, f *FSM) {
	var buf bytes.Buffer
	snap, err := f.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	if err := snap.(*snapshot).write(&buf); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		g := New()
		if err := g.Restore(io.NopCloser(bytes.NewReader(buf.Bytes()))); err != nil {
			b.Fatal(err)
		}
	}
}
