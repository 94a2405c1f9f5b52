package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
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

// followLiveHeap sets GOGC from the live heap the last collection found, every second, until
// ctx ends. A second is far shorter than the time a state takes to grow by megabytes.
func followLiveHeap(ctx context.Context) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	current := defaultGCPercent
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // a runtime without the metric: keep GOGC as it is
		}
		if p := gcPercentFor(sample[0].Value.Uint64()); p != current {
			debug.SetGCPercent(p)
			current = p
		}
	}
}
