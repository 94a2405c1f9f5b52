package flake

import (
	"errors"
	"testing"
	"time"
)

// FuzzNextRules drives a generator with a hostile script of calls, clock
// steps and lease changes, and checks the rules of Next after every call:
// IDs strictly increasing, inside the lease held, of its worker, no further
// ahead of the clock than MaxBorrow, refused once the lease expired, and
// never refused when the clock's own tick is free to use.
func FuzzNextRules(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 6, 2, 0, 0, 6, 3, 0, 0, 5, 1, 0, 0})
	f.Add([]byte{7, 0, 0, 0, 7, 1, 0, 0, 7, 2, 0, 0, 7, 3, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 9, 0, 0})
	f.Add([]byte{0, 0, 7, 2, 0, 0}) // a lower worker at the same tick
	// The clock 3 ms before MaxTick, then minting past it.
	up := []byte{4, 255, 4, 255, 4, 255, 4, 232}
	for range 24 {
		up = append(up, 0, 0)
	}
	f.Add(up)
	// The clock near MaxTick, then the next epoch: minting starts above it.
	f.Add([]byte{4, 255, 4, 255, 4, 255, 4, 232, 7, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, script []byte) {
		const maxBorrow = 20 * time.Millisecond
		l := tiny
		c := newFakeClock(start)
		lease := Lease{Worker: 3, Epoch: 1, MinTick: -1, MaxTick: mustTickOf(t, l, start.Add(time.Second)), ValidUntil: start.Add(time.Minute)}
		g := mustNew(t, l, lease, Options{Clock: c.now, MaxBorrow: maxBorrow})
		m := &mintModel{last: -1, lastTick: -1, floor: -1}
		for i := 0; i+1 < len(script); i += 2 {
			op, arg := script[i]%8, int64(script[i+1])
			switch op {
			case 4:
				c.add(time.Duration(arg) * time.Millisecond)
			case 5:
				c.add(-time.Duration(arg) * 10 * time.Millisecond)
			case 6:
				step := time.Duration(arg%4) * time.Hour
				if arg%2 == 1 {
					step = -step
				}
				c.add(step)
			case 7:
				prev := lease
				lease = changeLease(t, g, lease, l, c, arg)
				if lease.Worker != prev.Worker || lease.Epoch != prev.Epoch {
					m.floor = max(m.lastTick, lease.MinTick) // a new grant forgets the old floor
				} else {
					m.floor = max(m.floor, lease.MinTick)
				}
			default:
				m.checkNext(t, g, l, c, lease, maxBorrow)
			}
		}
	})
}

// changeLease applies one lease change chosen by arg as the FSM would
// grant it (a renewal, the next epoch, another worker), or a stale lease,
// which must be refused; it returns the lease now held.
func changeLease(t *testing.T, g *Generator, cur Lease, l Layout, c *fakeClock, arg int64) Lease {
	next := cur
	clockTick := floorTick(l, c.now())
	switch arg % 4 {
	case 0: // renewal
		next.MaxTick = max(cur.MaxTick, clockTick) + arg*10
		next.ValidUntil = maxTime(cur.ValidUntil, c.now()).Add(time.Duration(arg) * time.Second)
	case 1: // the next epoch of this worker, above its recorded high-water
		next.Epoch++
		next.MinTick = cur.MaxTick
		next.MaxTick = max(cur.MaxTick, clockTick) + 1 + arg*10
		next.ValidUntil = c.now().Add(time.Minute)
	case 2: // another worker, never held before
		next.Worker = uint64(arg) % l.MaxWorkers()
		next.Epoch++
		next.MinTick = -1
		next.MaxTick = max(cur.MaxTick, clockTick) + 1 + arg*10
		next.ValidUntil = c.now().Add(time.Minute)
	case 3: // a stale answer
		next.MaxTick--
		if err := g.SetLease(next); !errors.Is(err, ErrStaleLease) {
			t.Fatalf("SetLease(%+v) over %+v = %v, want ErrStaleLease", next, cur, err)
		}
		return cur
	}
	if err := g.SetLease(next); err != nil {
		t.Fatalf("SetLease(%+v) over %+v: %v", next, cur, err)
	}
	return next
}

// mintModel is what FuzzNextRules knows of a generator: the last ID and
// its tick, and the floor the next ID must be above (the last tick minted,
// or the MinTick of the lease held if higher).
type mintModel struct{ last, lastTick, floor int64 }

// checkNext calls Next once and checks its answer against the rules.
func (m *mintModel) checkNext(t *testing.T, g *Generator, l Layout, c *fakeClock, lease Lease, maxBorrow time.Duration) {
	now := c.now()
	clockTick := floorTick(l, now)
	id, err := g.Next()
	free := now.Before(lease.ValidUntil) && clockTick > m.floor && clockTick <= lease.MaxTick
	if err != nil {
		switch {
		case free:
			t.Fatalf("Next refused (%v) with the clock's tick %d free (floor %d, lease %+v)", err, clockTick, m.floor, lease)
		case !now.Before(lease.ValidUntil) && !errors.Is(err, ErrLeaseExpired):
			t.Fatalf("Next after ValidUntil: %v, want ErrLeaseExpired", err)
		case !errors.Is(err, ErrClockBehind) && !errors.Is(err, ErrLeaseExhausted) && !errors.Is(err, ErrLeaseExpired):
			t.Fatalf("Next: unexpected %v", err)
		}
		return
	}
	p := mustDecompose(t, l, id)
	switch {
	case !now.Before(lease.ValidUntil):
		t.Fatalf("minted %d at %v, after ValidUntil %v", id, now, lease.ValidUntil)
	case id <= m.last:
		t.Fatalf("minted %d after %d", id, m.last)
	case p.Tick <= lease.MinTick || p.Tick > lease.MaxTick:
		t.Fatalf("minted tick %d outside (%d, %d]", p.Tick, lease.MinTick, lease.MaxTick)
	case p.Worker != lease.Worker:
		t.Fatalf("minted worker %d under a lease of %d", p.Worker, lease.Worker)
	case p.Tick-clockTick > int64(maxBorrow/l.Unit):
		t.Fatalf("minted tick %d, %d ahead of the clock's %d", p.Tick, p.Tick-clockTick, clockTick)
	}
	m.last, m.lastTick, m.floor = id, p.Tick, p.Tick
}

// floorTick is the tick at falls in, negative before the epoch.
func floorTick(l Layout, at time.Time) int64 {
	d := at.Sub(l.Epoch)
	if d < 0 && d%l.Unit != 0 {
		return int64(d/l.Unit) - 1
	}
	return int64(d / l.Unit)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
