package flake

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a wall clock the test moves by hand; safe for goroutines.
type fakeClock struct{ nanos atomic.Int64 }

func newFakeClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.set(t)
	return c
}

func (c *fakeClock) now() time.Time               { return time.Unix(0, c.nanos.Load()).UTC() }
func (c *fakeClock) set(t time.Time)              { c.nanos.Store(t.UnixNano()) }
func (c *fakeClock) add(d time.Duration)          { c.nanos.Add(int64(d)) }
func (c *fakeClock) setTick(l Layout, tick int64) { c.set(l.Epoch.Add(time.Duration(tick) * l.Unit)) }

// start is a time well inside DefaultLayout's range.
var start = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

func mustTickOf(t testing.TB, l Layout, at time.Time) int64 {
	t.Helper()
	tick, err := l.TickOf(at)
	if err != nil {
		t.Fatalf("TickOf(%v): %v", at, err)
	}
	return tick
}

// leaseAround is a lease of worker for ticks (minTick, the clock's tick +
// ahead], valid for a day of the clock.
func leaseAround(t testing.TB, l Layout, c *fakeClock, worker uint64, minTick int64, ahead time.Duration) Lease {
	t.Helper()
	return Lease{
		Worker:     worker,
		Epoch:      1,
		MinTick:    minTick,
		MaxTick:    mustTickOf(t, l, c.now().Add(ahead)),
		ValidUntil: c.now().Add(24 * time.Hour),
	}
}

func mustNew(t testing.TB, l Layout, lease Lease, opts Options) *Generator {
	t.Helper()
	g, err := New(l, lease, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

func mustNext(t testing.TB, g *Generator) int64 {
	t.Helper()
	id, err := g.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return id
}

// mustNextErr checks that Next fails with want.
func mustNextErr(t testing.TB, g *Generator, want error) {
	t.Helper()
	id, err := g.Next()
	if !errors.Is(err, want) {
		t.Fatalf("Next = %d, %v; want %v", id, err, want)
	}
}

func mustDecompose(t testing.TB, l Layout, id int64) Parts {
	t.Helper()
	p, err := l.Decompose(id)
	if err != nil {
		t.Fatalf("Decompose(%d): %v", id, err)
	}
	return p
}

// mintAbove mints n IDs, checking each is above the one before (and above
// floor).
func mintAbove(t testing.TB, g *Generator, floor int64, n int) []int64 {
	t.Helper()
	ids := make([]int64, 0, n)
	for range n {
		id := mustNext(t, g)
		if id <= floor {
			t.Fatalf("ID %d is not above %d", id, floor)
		}
		floor = id
		ids = append(ids, id)
	}
	return ids
}
