package hilopool

import (
	"testing"
	"time"
)

func TestPoolTargetFollowsTheRateWithinBounds(t *testing.T) {
	for _, tc := range []struct {
		capacity  int64
		perSecond float64
		want      int64
	}{
		{32, 0, minPoolSize},                     // a new tag: the floor
		{4096, 0, 6 * 4096},                      // six ranges of a grown client
		{32, 8640, 8640 * 120},                   // 270 ranges of 32 a second: two minutes of them
		{1 << 20, 0, 6 << 20},                    // six of the largest ranges
		{32, 1e9, maxPoolSize},                   // the ceiling
		{1 << 20, float64(1 << 20), maxPoolSize}, // two minutes above the ceiling
		{1024, 10, 6 * 1024},                     // a slow tag: ranges win over its rate
	} {
		if got := poolTarget(tc.capacity, tc.perSecond); got != tc.want {
			t.Errorf("poolTarget(%d, %v) = %d, want %d", tc.capacity, tc.perSecond, got, tc.want)
		}
	}
}

func TestGrantRateIsTakenPerWindow(t *testing.T) {
	var r grantRate
	t0 := time.Unix(1000, 0)
	r.add(32, t0)
	r.add(32, t0.Add(500*time.Millisecond))
	if r.perSecond != 0 {
		t.Fatalf("rate %v before a window ended, want 0", r.perSecond)
	}
	r.add(64, t0.Add(2*time.Second)) // 128 numbers over 2 s
	if r.perSecond != 64 {
		t.Fatalf("rate %v, want 64 a second", r.perSecond)
	}
	// The next window counts from there: 3000 numbers in 1.5 s.
	r.add(1000, t0.Add(2500*time.Millisecond))
	r.add(2000, t0.Add(3500*time.Millisecond))
	if r.perSecond != 2000 {
		t.Fatalf("rate %v, want 2000 a second", r.perSecond)
	}
}
