package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// defaultGCPercent replaces Go's GOGC=100 while a node's state is small. A node's live heap is
// then a few MB, so at 100 the collector runs hundreds of times a second under load and took a
// fifth of a node's CPU; at 400 the heap still stays far below 40 MB (docs/BENCHMARKS.md).
// GOGC in the environment wins, and then followLiveHeap does not run.
const defaultGCPercent = 400

// gcHeadroom is the most garbage the heap may gather above the live heap before the next
// collection, once the state is large. GOGC=400 lets the heap grow to five times the live
// heap: with 10⁶ identity counters (~75 MB live) that was ~400 MB of resident set, 400 bytes
// per counter ("State growth" in docs/BENCHMARKS.md). Past gcHeadroom/4 of live heap, GOGC
// falls so that the headroom stays gcHeadroom, down to Go's own 100: a large state costs
// twice its size, not five times, and the collections it adds each mark a heap that is
// large anyway.
const gcHeadroom = 64 << 20

// gcPercentFor returns the GOGC for a live heap of live bytes: defaultGCPercent, lowered so
// that the headroom is at most gcHeadroom, but never under 100.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return defaultGCPercent
	}
	return int(max(100, min(defaultGCPercent, gcHeadroom*100/live)))
}

// followLiveHeap sets GOGC from the live heap each collection found, from the end of that
// collection, until ctx ends. It must follow each one, not a clock: a flood of calls raised
// the live heap from 16 to 26 MB between two collections a few milliseconds apart, and with
// GOGC still at 400 the next goal was 130 MB, 104 MB of garbage; a node that looked once a
// second let the heap reach it before lowering GOGC.
func followLiveHeap(ctx context.Context) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := defaultGCPercent
	afterEachGC(ctx, func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return false // a runtime without the metric: keep GOGC as it is
		}
		if p := gcPercentFor(sample[0].Value.Uint64()); p != current {
			debug.SetGCPercent(p)
			current = p
		}
		return true
	})
}

// afterEachGC calls f soon after each garbage collection, until ctx ends or f returns false.
// Each call is armed by an object nothing refers to, whose cleanup the collection that frees
// it runs: the runtime has no other hook for the end of a cycle. The object holds a pointer,
// so it is not one of the tiny objects the allocator batches, whose cleanups may never run.
// The next object is made before f runs, so a collection that starts once f has returned
// always finds one to free.
func afterEachGC(ctx context.Context, f func() bool) {
	var arm func() runtime.Cleanup
	arm = func() runtime.Cleanup {
		type sentinel struct{ _ *int }
		return runtime.AddCleanup(new(sentinel), func(struct{}) {
			if ctx.Err() != nil {
				return
			}
			if next := arm(); !f() {
				next.Stop()
			}
		}, struct{}{})
	}
	arm()
}
