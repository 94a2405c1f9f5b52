package hilo

import (
	"testing"
	"time"
)

// About paceChecks takers per range measure the rate, at a power-of-two step, and every one
// of a small range does.
func TestCheckMask(t *testing.T) {
	for _, c := range []struct{ size, mask int64 }{
		{1, 0}, {16, 0}, {31, 0}, {32, 1}, {64, 3}, {100, 3}, {8192, 511}, {1 << 20, 1<<16 - 1},
	} {
		if got := checkMask(c.size); got != c.mask {
			t.Errorf("checkMask(%d) = %d, want %d", c.size, got, c.mask)
		}
	}
}

// The rate comes from the last two checks; the prefetch is due once the rest of the range
// lasts less than two fetch times; a check of another range or an older one measures nothing.
func TestPaceCheck(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	a, b := newSpan(1, 1000, "orders/", "-A"), newSpan(1001, 2999, "orders/", "-A")
	var p pace
	p.fetched(10 * time.Millisecond)
	if p.begin(a, t0) {
		t.Fatal("due at the start of the first range, with no rate measured yet")
	}
	// 100 IDs in 100 ms: 1000 IDs/s, 900 left last 900 ms, far more than 2 × 10 ms.
	if p.check(a, 100, t0.Add(100*time.Millisecond)) || p.rate != 1000 {
		t.Fatalf("at 1000 IDs/s with 900 left: due, or rate %g", p.rate)
	}
	// The next 100 in 1 ms: 100,000 IDs/s, 800 left last 8 ms < 20 ms.
	if !p.check(a, 200, t0.Add(101*time.Millisecond)) {
		t.Fatalf("at %g IDs/s with 800 left: not due", p.rate)
	}
	if p.check(a, 150, t0.Add(102*time.Millisecond)) || p.k != 200 {
		t.Fatalf("a check older than the last one moved the measure to %d", p.k)
	}
	if p.check(b, 10, t0.Add(103*time.Millisecond)) || p.span != a {
		t.Fatal("a check of a range not being measured counted")
	}
	// b's 1999 IDs last 19.99 ms at 100,000 IDs/s, less than two fetch times: due at once.
	if !p.begin(b, t0.Add(104*time.Millisecond)) {
		t.Fatal("a range that lasts less than two fetch times at the last rate: not due when it begins")
	}
	if p.check(b, 20, t0.Add(104*time.Millisecond)); p.rate != 20e9 {
		t.Errorf("a clock that did not move: rate %g, want 20 IDs per nanosecond", p.rate)
	}
}

// The fetch time follows a slower fetch at once and forgets it by an eighth per quicker one.
func TestPaceFetchTime(t *testing.T) {
	var p pace
	p.fetched(8 * time.Millisecond)
	p.fetched(time.Millisecond)
	if p.fetchTime != 7*time.Millisecond {
		t.Fatalf("after 8 ms and 1 ms: %v, want 7 ms", p.fetchTime)
	}
	p.fetched(20 * time.Millisecond)
	if p.fetchTime != 20*time.Millisecond {
		t.Fatalf("after a 20 ms fetch: %v", p.fetchTime)
	}
}
