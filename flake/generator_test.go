package flake

import (
	"errors"
	"math"
	"testing"
	"time"
)

// tiny has 4 IDs per tick, so tests reach a sequence overflow in a few
// calls.
var tiny = Layout{Epoch: customEpoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 10, SequenceBits: 2}

func TestNextWithinOneTick(t *testing.T) {
	l := DefaultLayout()
	c := newFakeClock(start)
	g := mustNew(t, l, leaseAround(t, l, c, 7, -1, time.Minute), Options{Clock: c.now})
	now := mustTickOf(t, l, c.now())
	for i, id := range mintAbove(t, g, -1, 100) {
		want := Parts{Tick: now, Worker: 7, Sequence: uint64(i), Time: start}
		if p := mustDecompose(t, l, id); p != want {
			t.Fatalf("ID %d = %+v, want %+v", i, p, want)
		}
	}
	c.add(time.Millisecond)
	if p := mustDecompose(t, l, mustNext(t, g)); p.Tick != now+1 || p.Sequence != 0 {
		t.Errorf("first ID of the next tick: %+v", p)
	}
}

func TestSequenceOverflowBorrowsNextTick(t *testing.T) {
	c := newFakeClock(start)
	g := mustNew(t, tiny, leaseAround(t, tiny, c, 1, -1, time.Minute), Options{Clock: c.now, MaxBorrow: 2 * time.Millisecond})
	now := mustTickOf(t, tiny, c.now())
	ids := mintAbove(t, g, -1, 12)
	for i, id := range ids {
		p := mustDecompose(t, tiny, id)
		if p.Tick != now+int64(i/4) || p.Sequence != uint64(i%4) {
			t.Fatalf("ID %d = %+v, want tick %d sequence %d", i, p, now+int64(i/4), i%4)
		}
	}
	// Two ticks borrowed is the bound: the 13th ID would be a third.
	mustNextErr(t, g, ErrClockBehind)
	if got := g.Saturations(); got != 2 {
		t.Errorf("Saturations() = %d after two ticks borrowed, want 2", got)
	}
	c.add(time.Millisecond)
	p := mustDecompose(t, tiny, mintAbove(t, g, ids[11], 1)[0])
	if p.Tick != now+3 || p.Sequence != 0 {
		t.Errorf("after the clock moved one tick: %+v, want tick %d sequence 0", p, now+3)
	}
	// The tick the clock moved into was borrowed as well: its sequence 0 follows a full tick.
	if got := g.Saturations(); got != 3 {
		t.Errorf("Saturations() = %d after a third tick borrowed, want 3", got)
	}
}

func TestNoBorrowingBelowOneUnit(t *testing.T) {
	c := newFakeClock(start)
	g := mustNew(t, tiny, leaseAround(t, tiny, c, 1, -1, time.Minute), Options{Clock: c.now, MaxBorrow: time.Nanosecond})
	mintAbove(t, g, -1, 4)
	mustNextErr(t, g, ErrClockBehind)
}

// TestClockStepsForwardAndBack: +1 h then −1 h. IDs stay strictly
// increasing; once the borrow bound is passed Next refuses, and it resumes
// when the clock is back where it was.
func TestClockStepsForwardAndBack(t *testing.T) {
	l := tiny
	c := newFakeClock(start)
	g := mustNew(t, l, leaseAround(t, l, c, 3, -1, 2*time.Hour), Options{Clock: c.now, MaxBorrow: 10 * time.Millisecond})
	seen := map[int64]bool{}
	last := int64(-1)
	mint := func(n int) {
		t.Helper()
		for _, id := range mintAbove(t, g, last, n) {
			if seen[id] {
				t.Fatalf("duplicate %d", id)
			}
			seen[id] = true
			last = id
		}
	}
	mint(10)
	c.add(time.Hour)
	mint(10) // 4 IDs a tick: ticks +0, +1 and +2 ms past the step
	high := mustDecompose(t, l, last).Time
	if !high.Equal(start.Add(time.Hour + 2*time.Millisecond)) {
		t.Errorf("after +1h the ticks follow the clock: %v", high)
	}
	c.add(-time.Hour)
	mustNextErr(t, g, ErrClockBehind)
	c.set(high.Add(-11 * time.Millisecond)) // still beyond the 10 ms bound
	mustNextErr(t, g, ErrClockBehind)
	c.add(time.Millisecond) // 10 ms behind: borrowing is allowed again
	mint(2)
	if p := mustDecompose(t, l, last); !p.Time.Equal(high) || p.Sequence != 3 {
		t.Errorf("after the step back the ticks stay high: %+v", p)
	}
	c.add(20 * time.Millisecond)
	mint(44) // 11 ticks: the clock's and 10 borrowed
	mustNextErr(t, g, ErrClockBehind)
}

func TestClockForwardPastMaxTick(t *testing.T) {
	c := newFakeClock(start)
	lease := leaseAround(t, tiny, c, 3, -1, time.Minute)
	g := mustNew(t, tiny, lease, Options{Clock: c.now})
	first := mustNext(t, g)
	c.add(time.Hour)
	mustNextErr(t, g, ErrLeaseExhausted)
	// The refused step moved nothing: with the clock back, minting goes on
	// right after the first ID.
	c.add(-time.Hour)
	if id := mustNext(t, g); id != first+1 {
		t.Errorf("Next = %d, want %d", id, first+1)
	}
}

// TestMinTickAheadOfClock: a lease's MinTick above the clock's tick (the
// previous holder ran ahead, or this clock is behind) starts at MinTick+1
// when that is within the borrow bound, and refuses otherwise.
func TestMinTickAheadOfClock(t *testing.T) {
	l := DefaultLayout()
	c := newFakeClock(start)
	now := mustTickOf(t, l, c.now())

	near := leaseAround(t, l, c, 5, now+500, time.Minute) // 0.5 s ahead
	g := mustNew(t, l, near, Options{Clock: c.now})
	if p := mustDecompose(t, l, mustNext(t, g)); p.Tick != now+501 || p.Sequence != 0 {
		t.Errorf("first ID %+v, want tick %d sequence 0", p, now+501)
	}
	// Ahead of the clock by the lease's floor, not by a full sequence: no saturation.
	if got := g.Saturations(); got != 0 {
		t.Errorf("Saturations() = %d at a lease's floor ahead of the clock, want 0", got)
	}

	far := leaseAround(t, l, c, 5, now+5000, time.Minute) // 5 s ahead
	g = mustNew(t, l, far, Options{Clock: c.now})
	mustNextErr(t, g, ErrClockBehind)
	c.add(4 * time.Second) // MinTick+1 still 1001 ticks ahead
	mustNextErr(t, g, ErrClockBehind)
	c.add(time.Millisecond)
	if p := mustDecompose(t, l, mustNext(t, g)); p.Tick != now+5001 {
		t.Errorf("first ID %+v, want tick %d", p, now+5001)
	}
}

func TestClockBeforeEpoch(t *testing.T) {
	l := DefaultLayout()
	c := newFakeClock(l.Epoch.Add(-1500 * time.Microsecond)) // tick −2 rounded down
	g := mustNew(t, l, Lease{MinTick: -1, MaxTick: 10, ValidUntil: l.Epoch.Add(time.Hour)},
		Options{Clock: c.now, MaxBorrow: time.Millisecond})
	mustNextErr(t, g, ErrClockBehind) // tick 0 is 2 ticks ahead of −2
	c.add(time.Millisecond)           // tick −1
	if id := mustNext(t, g); id != 0 {
		t.Errorf("first ID %d, want 0", id)
	}
	c.set(time.Time{})
	mustNextErr(t, g, ErrClockBehind)
}

// TestLeaf216Restart is the restart that Meituan Leaf's tracker reports at
// https://github.com/Meituan-Dianping/Leaf/issues/216: a generator restarts and
// its clock steps back 1 s. The restarted generator takes a lease whose
// MinTick is the high-water the FSM recorded for the worker, so none of its
// IDs is at or below any ID minted before the restart.
func TestLeaf216Restart(t *testing.T) {
	l := DefaultLayout()
	for _, c := range []struct {
		name string
		// highWater is what the FSM recorded for A: its lease's MaxTick, or
		// (finer) the tick A reported reaching.
		highWater func(a Lease, lastTick int64) int64
		maxBorrow time.Duration
	}{
		{"lease MaxTick recorded", func(a Lease, _ int64) int64 { return a.MaxTick }, 0},
		{"last tick recorded", func(_ Lease, lastTick int64) int64 { return lastTick }, 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := newFakeClock(start)
			leaseA := leaseAround(t, l, clock, 9, -1, 3*time.Second)
			a := mustNew(t, l, leaseA, Options{Clock: clock.now, MaxBorrow: c.maxBorrow})
			var aIDs []int64
			for range 2000 {
				aIDs = append(aIDs, mintAbove(t, a, -1, 3)...)
				clock.add(time.Millisecond)
			}
			aMax := aIDs[len(aIDs)-1]
			// Restart: A is gone, the clock is stepped back 1 s, B holds
			// the same worker in the next epoch.
			clock.add(-time.Second)
			leaseB := leaseAround(t, l, clock, 9, c.highWater(leaseA, mustDecompose(t, l, aMax).Tick), 10*time.Second)
			leaseB.Epoch = 2
			b := mustNew(t, l, leaseB, Options{Clock: clock.now, MaxBorrow: c.maxBorrow})
			var bIDs []int64
			for len(bIDs) < 6000 {
				id, err := b.Next()
				switch {
				case errors.Is(err, ErrClockBehind):
					clock.add(time.Millisecond) // wait for the clock
				case err != nil:
					t.Fatal(err)
				default:
					if id <= aMax {
						t.Fatalf("B minted %d, at or below A's %d", id, aMax)
					}
					bIDs = append(bIDs, id)
				}
			}
			seen := map[int64]bool{}
			for _, id := range append(aIDs, bIDs...) {
				if seen[id] {
					t.Fatalf("duplicate %d", id)
				}
				seen[id] = true
			}
		})
	}
}

func TestMaxTickEnforcedAndRenewed(t *testing.T) {
	c := newFakeClock(start)
	lease := leaseAround(t, tiny, c, 2, -1, 2*time.Millisecond)
	g := mustNew(t, tiny, lease, Options{Clock: c.now})
	ids := mintAbove(t, g, -1, 12) // ticks now, now+1, now+2 = MaxTick
	if p := mustDecompose(t, tiny, ids[11]); p.Tick != lease.MaxTick || p.Sequence != 3 {
		t.Fatalf("last ID %+v, want the end of tick %d", p, lease.MaxTick)
	}
	mustNextErr(t, g, ErrLeaseExhausted)
	c.add(time.Second)
	mustNextErr(t, g, ErrLeaseExhausted)

	lease.MaxTick += 2000
	if err := g.SetLease(lease); err != nil {
		t.Fatal(err)
	}
	mintAbove(t, g, ids[11], 10)
}

func TestValidUntilEnforcedAndRenewed(t *testing.T) {
	c := newFakeClock(start)
	lease := leaseAround(t, tiny, c, 2, -1, time.Hour)
	lease.ValidUntil = start.Add(time.Second)
	g := mustNew(t, tiny, lease, Options{Clock: c.now})
	last := mintAbove(t, g, -1, 1)[0]
	c.set(lease.ValidUntil.Add(-1))
	last = mintAbove(t, g, last, 1)[0]
	c.set(lease.ValidUntil)
	mustNextErr(t, g, ErrLeaseExpired)
	c.add(time.Minute)
	mustNextErr(t, g, ErrLeaseExpired)

	lease.ValidUntil = c.now().Add(time.Minute)
	if err := g.SetLease(lease); err != nil {
		t.Fatal(err)
	}
	mintAbove(t, g, last, 10)
}

func TestLayoutExhausted(t *testing.T) {
	l := tiny
	c := newFakeClock(start)
	c.setTick(l, l.MaxTick())
	lease := Lease{MinTick: l.MaxTick() - 1, MaxTick: math.MaxInt64, ValidUntil: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := mustNew(t, l, lease, Options{Clock: c.now})
	mintAbove(t, g, -1, 4)
	mustNextErr(t, g, ErrLayoutExhausted)
	c.add(time.Hour)
	mustNextErr(t, g, ErrLayoutExhausted)
	c.set(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC))
	mustNextErr(t, g, ErrLayoutExhausted)
}

func TestNewRefuses(t *testing.T) {
	l := DefaultLayout()
	ok := Lease{Worker: 1, MinTick: -1, MaxTick: 100, ValidUntil: start}
	for name, c := range map[string]struct {
		lease Lease
		opts  Options
		want  error
	}{
		"worker outside layout": {Lease{Worker: 1024, MinTick: -1, MaxTick: 100, ValidUntil: start}, Options{}, ErrBadLease},
		"MinTick below -1":      {Lease{MinTick: -2, MaxTick: 100, ValidUntil: start}, Options{}, ErrBadLease},
		"MinTick = MaxTick":     {Lease{MinTick: 100, MaxTick: 100, ValidUntil: start}, Options{}, ErrBadLease},
		"MaxTick below MinTick": {Lease{MinTick: 100, MaxTick: math.MinInt64, ValidUntil: start}, Options{}, ErrBadLease},
		"MinTick at layout end": {Lease{MinTick: l.MaxTick(), MaxTick: math.MaxInt64, ValidUntil: start}, Options{}, ErrBadLease},
		"no ValidUntil":         {Lease{MinTick: -1, MaxTick: 100}, Options{}, ErrBadLease},
		"negative MaxBorrow":    {ok, Options{MaxBorrow: -time.Nanosecond}, ErrBadOptions},
	} {
		if g, err := New(l, c.lease, c.opts); !errors.Is(err, c.want) || g != nil {
			t.Errorf("%s: New = %v, %v; want %v", name, g, err, c.want)
		}
	}
	if _, err := New(l, ok, Options{MaxBorrow: math.MaxInt64}); err != nil {
		t.Errorf("New with the longest MaxBorrow: %v", err)
	}
}

func TestDefaultClockIsTheWallClock(t *testing.T) {
	l := DefaultLayout()
	now := time.Now()
	lease := Lease{MinTick: -1, MaxTick: l.MaxTick(), ValidUntil: now.Add(time.Hour)}
	g := mustNew(t, l, lease, Options{})
	p := mustDecompose(t, l, mustNext(t, g))
	if d := p.Time.Sub(now); d < -time.Millisecond || d > time.Minute {
		t.Errorf("ID time %v is %v from the wall clock", p.Time, d)
	}
}

// TestNextDoesNotAllocate: minting and its errors allocate nothing, so a hot
// loop puts no load on the garbage collector.
func TestNextDoesNotAllocate(t *testing.T) {
	c := newFakeClock(start)
	g := mustNew(t, tiny, leaseAround(t, tiny, c, 1, -1, time.Hour), Options{Clock: c.now, MaxBorrow: time.Millisecond})
	if n := testing.AllocsPerRun(1000, func() { _, _ = g.Next() }); n != 0 {
		t.Errorf("Next allocates %v times a call (ErrClockBehind path included)", n)
	}
}

// TestTicksFollowTheWallClock: an epoch carrying a monotonic reading (taken
// from time.Now) is kept without it, so ticks are wall-clock time, as in
// TickOf and in every other process.
func TestTicksFollowTheWallClock(t *testing.T) {
	l := DefaultLayout()
	l.Epoch = time.Now().Add(-time.Hour)
	g := mustNew(t, l, Lease{MinTick: -1, MaxTick: l.MaxTick(), ValidUntil: time.Now().Add(time.Hour)}, Options{})
	if g.layout.Epoch != l.Epoch.Round(0) {
		t.Errorf("the generator's epoch %v keeps a monotonic reading", g.layout.Epoch)
	}
	p := mustDecompose(t, l, mustNext(t, g))
	if d := time.Since(p.Time); d < -time.Millisecond || d > time.Minute {
		t.Errorf("ID time %v is %v from the wall clock", p.Time, d)
	}
}
