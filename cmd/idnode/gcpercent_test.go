package main

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// GOGC is 400 while the live heap is small, falls as it grows past 16 MiB so the headroom
// stays 64 MiB, and stops at Go's default of 100.
func TestGCPercentFollowsTheLiveHeap(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 400},
		{3 << 20, 400},
		{16 << 20, 400},
		{32 << 20, 200},
		{48 << 20, 133},
		{64 << 20, 100},
		{1 << 30, 100},
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}

// afterEachGC hears of every collection, each soon after it ends.
func TestAfterEachGCHearsEachCollection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	heard := make(chan struct{}, 1)
	afterEachGC(ctx, func() bool {
		select {
		case heard <- struct{}{}:
		default: // a collection of the test binary's own came first; one is enough
		}
		return true
	})
	for i := range 3 {
		runtime.GC()
		select {
		case <-heard:
		case <-time.After(10 * time.Second):
			t.Fatalf("nothing heard within 10 s of collection %d", i+1)
		}
	}
}
