package fsm

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// counterSizes are the state sizes of bench/state_growth.sh's table.
var counterSizes = []int{1_000, 10_000, 100_000, 1_000_000}

// countersFSM is an FSM holding n identity counters and n HiLo tags named "growth-<k>", the
// names `idbench --names n --prefix growth` (bench/state_growth.sh) creates.
func countersFSM(b testing.TB, n int) *FSM {
	b.Helper()
	f := New()
	addCounters(b, f, n)
	addTags(b, f, n)
	return f
}

// addCounters creates the counters growth-0 … growth-<n-1>, in identity batches of 1000.
func addCounters(b testing.TB, f *FSM, n int) {
	b.Helper()
	const perBatch = 1000
	batch := &raftv1.IdentityBatch{}
	for first := 0; first < n; first += perBatch {
		batch.Increments = batch.Increments[:0]
		for k := first; k < min(first+perBatch, n); k++ {
			batch.Increments = append(batch.Increments, &raftv1.IdentityIncrement{Name: "growth-" + strconv.Itoa(k), Count: 1})
		}
		mustApplyOK(b, f, IdentityBatchCommand, batch)
	}
}

// addTags reserves one range of 32 for each of the tags growth-0 … growth-<n-1>.
func addTags(b testing.TB, f *FSM, n int) {
	b.Helper()
	for k := range n {
		mustApplyOK(b, f, HiLoReserveCommand, &raftv1.HiLoReserve{Tag: "growth-" + strconv.Itoa(k), Capacity: 32})
	}
}

// mustApplyOK applies a command that must succeed.
func mustApplyOK(b testing.TB, f *FSM, t CommandType, m proto.Message) {
	b.Helper()
	if err, ok := mustApply(b, f, t, m).(error); ok {
		b.Fatalf("command %d: %v", t, err)
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkCounterMemory is the live heap one identity counter and one HiLo tag cost the FSM
// (every replica holds them), after a full collection.
//
//	go test -run NONE -bench CounterMemory -benchtime 1x ./fsm/
func BenchmarkCounterMemory(b *testing.B) {
	for _, n := range counterSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var perCounter, perTag float64
			for b.Loop() {
				empty := liveHeap()
				f := New()
				addCounters(b, f, n)
				withCounters := liveHeap()
				addTags(b, f, n)
				perCounter = float64(withCounters-empty) / float64(n)
				perTag = float64(liveHeap()-withCounters) / float64(n)
				runtime.KeepAlive(f)
			}
			b.ReportMetric(perCounter, "heap-B/counter")
			b.ReportMetric(perTag, "heap-B/tag")
		})
	}
}

// BenchmarkSnapshotCounters is what raft's snapshot of n counters and n tags costs the FSM: the
// capture (FSM.Snapshot, in raft's FSM goroutine: nothing is applied meanwhile) and the write
// (Persist, in the background).
//
//	go test -run NONE -bench SnapshotCounters -benchtime 3x ./fsm/
func BenchmarkSnapshotCounters(b *testing.B) {
	for _, n := range counterSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchSnapshot(b, countersFSM(b, n), n, "(counter+tag)") })
	}
}

// BenchmarkRestoreCounters is what reading that snapshot back costs (raft restores it before
// the node serves).
//
//	go test -run NONE -bench RestoreCounters -benchtime 3x -benchmem ./fsm/
func BenchmarkRestoreCounters(b *testing.B) {
	for _, n := range counterSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchRestore(b, countersFSM(b, n)) })
	}
}
