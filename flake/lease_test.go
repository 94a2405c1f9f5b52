package flake

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestSetLeaseRenewal(t *testing.T) {
	c := newFakeClock(start)
	lease := leaseAround(t, tiny, c, 4, -1, time.Second)
	g := mustNew(t, tiny, lease, Options{Clock: c.now})
	last := mintAbove(t, g, -1, 2)[1]

	renewed := lease
	renewed.MaxTick += 1000
	renewed.ValidUntil = renewed.ValidUntil.Add(time.Second)
	if err := g.SetLease(renewed); err != nil {
		t.Fatal(err)
	}
	if g.Lease() != renewed {
		t.Errorf("Lease() = %+v, want %+v", g.Lease(), renewed)
	}
	// A renewal keeps minting within the tick it was at.
	id := mustNext(t, g)
	if id != last+1 {
		t.Errorf("after renewal Next = %d, want %d", id, last+1)
	}
	if err := g.SetLease(renewed); err != nil {
		t.Errorf("the same lease again: %v", err)
	}

	for name, stale := range map[string]Lease{
		"lower MaxTick":      func() Lease { l := renewed; l.MaxTick--; return l }(),
		"earlier ValidUntil": func() Lease { l := renewed; l.ValidUntil = l.ValidUntil.Add(-1); return l }(),
		"lower epoch":        func() Lease { l := renewed; l.Epoch--; l.MaxTick += 5000; return l }(),
	} {
		if err := g.SetLease(stale); !errors.Is(err, ErrStaleLease) {
			t.Errorf("%s: SetLease = %v, want ErrStaleLease", name, err)
		}
	}
	if err := g.SetLease(Lease{Worker: 4, Epoch: 9, MinTick: 5, MaxTick: 5, ValidUntil: start}); !errors.Is(err, ErrBadLease) {
		t.Errorf("SetLease of an empty range = %v, want ErrBadLease", err)
	}
	if g.Lease() != renewed {
		t.Errorf("refused leases changed the lease: %+v", g.Lease())
	}
	if next := mustNext(t, g); next != id+1 {
		t.Errorf("refused leases changed the sequence: Next = %d, want %d", next, id+1)
	}
}

// TestSetLeaseNewWorkerKeepsIncreasing: a new worker (or epoch) mints from
// the tick above both its MinTick and the last ID, whichever is higher.
func TestSetLeaseNewWorkerKeepsIncreasing(t *testing.T) {
	l := DefaultLayout()
	c := newFakeClock(start)
	now := mustTickOf(t, l, c.now())
	g := mustNew(t, l, leaseAround(t, l, c, 900, -1, time.Minute), Options{Clock: c.now})
	last := mintAbove(t, g, -1, 3)[2]

	// A lower worker with a MinTick far below: the next tick, so the ID
	// still sorts above worker 900's.
	if err := g.SetLease(leaseAround(t, l, c, 1, 0, time.Minute)); err != nil {
		t.Fatal(err)
	}
	id := mintAbove(t, g, last, 1)[0]
	if p := mustDecompose(t, l, id); p != (Parts{Tick: now + 1, Worker: 1, Time: start.Add(time.Millisecond)}) {
		t.Errorf("first ID of worker 1: %+v", p)
	}
	// The same worker in a new epoch whose MinTick is ahead.
	next := leaseAround(t, l, c, 1, now+100, time.Minute)
	next.Epoch = 2
	if err := g.SetLease(next); err != nil {
		t.Fatal(err)
	}
	if p := mustDecompose(t, l, mintAbove(t, g, id, 1)[0]); p.Tick != now+101 || p.Sequence != 0 {
		t.Errorf("first ID of epoch 2: %+v", p)
	}
	// Epochs of different workers are not compared.
	other := leaseAround(t, l, c, 2, 0, time.Minute)
	other.Epoch = 0
	if err := g.SetLease(other); err != nil {
		t.Errorf("worker 2 at epoch 0 after worker 1 at epoch 2: %v", err)
	}
}

// TestDisjointLeasesOfOneWorkerNeverCollide: the FSM hands one worker to
// successive holders with tick ranges that do not overlap (each MinTick is
// the MaxTick recorded before). Two generators holding such leases, even
// running at once on the same clock, never mint the same ID.
func TestDisjointLeasesOfOneWorkerNeverCollide(t *testing.T) {
	l := tiny
	c := newFakeClock(start)
	now := mustTickOf(t, l, c.now())
	leaseA := Lease{Worker: 6, Epoch: 1, MinTick: -1, MaxTick: now + 50, ValidUntil: start.Add(time.Hour)}
	leaseB := Lease{Worker: 6, Epoch: 2, MinTick: now + 50, MaxTick: now + 200, ValidUntil: start.Add(time.Hour)}
	opts := Options{Clock: c.now, MaxBorrow: 100 * time.Millisecond}
	a, b := mustNew(t, l, leaseA, opts), mustNew(t, l, leaseB, opts)
	seen := map[int64]string{}
	minted := map[string]int{}
	for range 300 {
		for _, gen := range []struct {
			name string
			g    *Generator
		}{{"A", a}, {"B", b}} {
			name := gen.name
			id, err := gen.g.Next()
			if errors.Is(err, ErrLeaseExhausted) || errors.Is(err, ErrClockBehind) {
				continue // A runs out of its range, B waits for the clock to near its own
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if other, dup := seen[id]; dup {
				t.Fatalf("%s minted %d, already minted by %s", name, id, other)
			}
			seen[id] = name
			minted[name]++
		}
		c.add(time.Millisecond)
	}
	if minted["A"] == 0 || minted["B"] == 0 {
		t.Errorf("both should have minted: %v", minted)
	}
}

// TestForgedOverlappingLeasesCollide shows the boundary of the guarantee:
// two generators given the same worker AND overlapping tick ranges (a
// forged or replayed lease, which the Raft-granted lease exists to prevent)
// mint the same IDs. Nothing inside a process can detect it.
func TestForgedOverlappingLeasesCollide(t *testing.T) {
	c := newFakeClock(start)
	lease := leaseAround(t, DefaultLayout(), c, 6, -1, time.Minute)
	a := mustNew(t, DefaultLayout(), lease, Options{Clock: c.now})
	b := mustNew(t, DefaultLayout(), lease, Options{Clock: c.now})
	if x, y := mustNext(t, a), mustNext(t, b); x != y {
		t.Errorf("expected the collision the lease prevents, got %d and %d", x, y)
	}
}

// TestConcurrentNext: 16 goroutines on the real clock; no duplicates, and
// each goroutine sees its own IDs strictly increasing. Run with -race.
func TestConcurrentNext(t *testing.T) {
	for name, clock := range map[string]func() time.Time{
		"wall clock": time.Now,
		// A clock that never moves: every ID after the first 4 of a tick
		// borrows, under contention.
		"stopped clock": newFakeClock(start).now,
	} {
		t.Run(name, func(t *testing.T) {
			const goroutines, perGoroutine = 16, 5000
			l := tiny
			if name == "wall clock" {
				l = DefaultLayout()
			}
			at := clock()
			lease := Lease{Worker: 12, MinTick: -1, MaxTick: mustTickOf(t, l, at.Add(time.Hour)), ValidUntil: at.Add(time.Hour)}
			g := mustNew(t, l, lease, Options{Clock: clock, MaxBorrow: time.Hour})
			results := make([][]int64, goroutines)
			errs := make([]error, goroutines)
			var wg sync.WaitGroup
			for i := range goroutines {
				wg.Go(func() {
					ids := make([]int64, 0, perGoroutine)
					for range perGoroutine {
						id, err := g.Next()
						if err != nil {
							errs[i] = err
							return
						}
						if len(ids) > 0 && id <= ids[len(ids)-1] {
							errs[i] = errors.New("IDs went down within a goroutine")
							return
						}
						ids = append(ids, id)
					}
					results[i] = ids
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			all := slices.Concat(results...)
			slices.Sort(all)
			if len(all) != goroutines*perGoroutine {
				t.Fatalf("%d IDs, want %d", len(all), goroutines*perGoroutine)
			}
			for i := 1; i < len(all); i++ {
				if all[i] == all[i-1] {
					t.Fatalf("duplicate %d", all[i])
				}
			}
		})
	}
}

// TestSetLeaseWhileMinting: renewals and a change of worker race with Next
// (run with -race); IDs stay unique and each goroutine's keep increasing.
func TestSetLeaseWhileMinting(t *testing.T) {
	l := DefaultLayout()
	now := time.Now()
	lease := Lease{Worker: 1, Epoch: 1, MinTick: -1, MaxTick: mustTickOf(t, l, now.Add(time.Hour)), ValidUntil: now.Add(time.Hour)}
	g := mustNew(t, l, lease, Options{})
	const goroutines, perGoroutine = 4, 5000
	results := make([][]int64, goroutines)
	errs := make([]error, goroutines+1)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			for range perGoroutine {
				id, err := g.Next()
				if err != nil {
					errs[i] = err
					return
				}
				if n := len(results[i]); n > 0 && id <= results[i][n-1] {
					errs[i] = errors.New("IDs went down within a goroutine")
					return
				}
				results[i] = append(results[i], id)
			}
		})
	}
	wg.Go(func() {
		for i := range 200 {
			lease.MaxTick++
			if i == 100 {
				lease.Worker, lease.Epoch = 2, 1
			}
			if err := g.SetLease(lease); err != nil {
				errs[goroutines] = err
				return
			}
		}
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	all := slices.Concat(results...)
	slices.Sort(all)
	if len(slices.Compact(all)) != goroutines*perGoroutine {
		t.Fatal("duplicate IDs")
	}
	if g.Lease() != lease {
		t.Errorf("Lease() = %+v, want the last one set %+v", g.Lease(), lease)
	}
}

// TestNewGrantForgetsTheFloorOfTheOldOne: a lease whose MinTick is far
// ahead of this clock gives ErrClockBehind; a fresh grant of another worker
// then mints at once, above the last ID minted but not above the unused
// floor of the lease it replaced.
func TestNewGrantForgetsTheFloorOfTheOldOne(t *testing.T) {
	l := DefaultLayout()
	c := newFakeClock(start)
	now := mustTickOf(t, l, c.now())
	g := mustNew(t, l, leaseAround(t, l, c, 8, -1, time.Minute), Options{Clock: c.now})
	last := mintAbove(t, g, -1, 1)[0]

	ahead := leaseAround(t, l, c, 8, now+10_000, time.Minute) // the next epoch, 10 s ahead
	ahead.Epoch = 2
	if err := g.SetLease(ahead); err != nil {
		t.Fatal(err)
	}
	mustNextErr(t, g, ErrClockBehind)

	if err := g.SetLease(leaseAround(t, l, c, 9, -1, time.Minute)); err != nil {
		t.Fatal(err)
	}
	if p := mustDecompose(t, l, mintAbove(t, g, last, 1)[0]); p.Tick != now+1 || p.Worker != 9 {
		t.Errorf("first ID of worker 9: %+v, want tick %d", p, now+1)
	}
}

func TestLeaseOfMs(t *testing.T) {
	l := DefaultLayout()
	epochMs := l.Epoch.UnixMilli()
	until := time.Now().Add(time.Minute)
	for _, c := range []struct {
		name             string
		minMs, maxMs     int64
		wantMin, wantMax int64
		wantErr          bool
	}{
		{"a range after the epoch", epochMs + 10, epochMs + 30, 10, 30, false},
		{"a floor before the epoch", epochMs - 5000, epochMs + 30, -1, 30, false},
		{"nothing after the epoch", epochMs - 5000, epochMs - 1, 0, 0, true},
		{"one ms", epochMs + 10, epochMs + 10, 0, 0, true},
		{"far future", math.MaxInt64 - 1, math.MaxInt64, 0, 0, true},
	} {
		got, err := l.LeaseOfMs(3, 2, c.minMs, c.maxMs, until)
		if c.wantErr {
			if !errors.Is(err, ErrBadLease) {
				t.Errorf("%s: LeaseOfMs = %+v, %v; want ErrBadLease", c.name, got, err)
			}
			continue
		}
		if err != nil || got.MinTick != c.wantMin || got.MaxTick != c.wantMax || got.Worker != 3 || got.Epoch != 2 {
			t.Errorf("%s: LeaseOfMs = %+v, %v; want ticks (%d, %d]", c.name, got, err, c.wantMin, c.wantMax)
		}
	}
	// A coarser unit: ticks above MinTick start after minMs, MaxTick starts at or before maxMs.
	coarse := l
	coarse.Unit, coarse.TimeBits = 10*time.Millisecond, 37
	got, err := coarse.LeaseOfMs(0, 1, epochMs+15, epochMs+39, until)
	if err != nil || got.MinTick != 1 || got.MaxTick != 3 {
		t.Errorf("10 ms unit: LeaseOfMs = %+v, %v; want ticks (1, 3]", got, err)
	}
}
