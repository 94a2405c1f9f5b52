package hilo

import (
	"testing"
	"time"
)

func TestPolicyCapacity(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	p := DefaultPolicy
	cases := []struct {
		name string
		last int64
		at   time.Time
		want int64
	}{
		{"first range", 0, time.Time{}, 32},
		{"unknown time keeps a larger last", 500, time.Time{}, 500},
		{"unknown time never below min", 3, time.Time{}, 32},
		{"fast reuse doubles", 32, now.Add(-time.Second), 64},
		{"fast reuse doubles large", 4096, now.Add(-29 * time.Second), 8192},
		{"doubling stops at max", 1 << 20, now.Add(-time.Second), 1 << 20},
		{"doubling clamps to max", 700_000, now.Add(-time.Second), 1 << 20},
		{"fast reuse with no last size", 0, now.Add(-time.Second), 32},
		{"between 30 and 60 s keeps", 256, now.Add(-45 * time.Second), 256},
		{"exactly 30 s keeps", 256, now.Add(-30 * time.Second), 256},
		{"exactly 60 s keeps", 256, now.Add(-60 * time.Second), 256},
		{"slow use halves", 256, now.Add(-61 * time.Second), 128},
		{"halving stops at min", 32, now.Add(-time.Hour), 32},
		{"halving clamps to min", 40, now.Add(-time.Hour), 32},
		{"clock went backwards counts as fast", 64, now.Add(time.Minute), 128},
	}
	for _, c := range cases {
		if got := p.Capacity(c.last, c.at, now); got != c.want {
			t.Errorf("%s: Capacity(%d, %v) = %d, want %d", c.name, c.last, now.Sub(c.at), got, c.want)
		}
	}
}

// Doubling from the minimum reaches the maximum in exactly log2(max/min) fast steps and then
// stays; halving from the maximum comes back down the same way.
func TestPolicyDoublesToMaxAndHalvesToMin(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	p := DefaultPolicy
	size, steps := int64(0), 0
	for size < p.Max {
		size = p.Capacity(size, now.Add(-time.Second), now)
		steps++
		if steps > 64 {
			t.Fatal("never reached the maximum")
		}
	}
	if size != p.Max || steps != 16 { // 32 (first, from 0) … 2^20
		t.Fatalf("reached %d after %d steps, want %d after 16", size, steps, p.Max)
	}
	for size > p.Min {
		size = p.Capacity(size, now.Add(-2*time.Minute), now)
	}
	if size != p.Min {
		t.Fatalf("halving ended at %d, want %d", size, p.Min)
	}
}
