package main

import "testing"

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
