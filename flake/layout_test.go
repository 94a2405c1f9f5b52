package flake

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestLayoutValidate(t *testing.T) {
	good := DefaultLayout()
	for _, l := range []Layout{good, JSSafeLayout(),
		{Epoch: good.Epoch, Unit: time.Millisecond, TimeBits: 1, WorkerBits: 1, SequenceBits: 1},
		{Epoch: good.Epoch, Unit: 10 * time.Millisecond, TimeBits: 39, WorkerBits: 16, SequenceBits: 8}, // sonyflake's
		{Epoch: good.Epoch, Unit: time.Millisecond, TimeBits: 43, WorkerBits: 10, SequenceBits: 10},
	} {
		if err := l.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", l, err)
		}
	}
	bad := map[string]func(l *Layout){
		"no epoch":            func(l *Layout) { l.Epoch = time.Time{} },
		"unit below 1ms":      func(l *Layout) { l.Unit = time.Millisecond - 1 },
		"no unit":             func(l *Layout) { l.Unit = 0 },
		"negative unit":       func(l *Layout) { l.Unit = -time.Second },
		"no time bits":        func(l *Layout) { l.TimeBits = 0 },
		"no worker bits":      func(l *Layout) { l.WorkerBits = 0 },
		"no sequence bits":    func(l *Layout) { l.SequenceBits = 0 },
		"64 bits":             func(l *Layout) { l.SequenceBits = 13 },
		"huge field":          func(l *Layout) { l.TimeBits = math.MaxUint - 20 },
		"wrapping sum":        func(l *Layout) { l.TimeBits, l.WorkerBits = 1<<63, 1<<63 },
		"span over Duration":  func(l *Layout) { l.TimeBits, l.WorkerBits, l.SequenceBits = 44, 9, 10 },
		"span of long units":  func(l *Layout) { l.Unit = 24 * time.Hour },
		"span of huge units":  func(l *Layout) { l.Unit = math.MaxInt64 },
		"span of 62-bit time": func(l *Layout) { l.TimeBits, l.WorkerBits, l.SequenceBits = 61, 1, 1 },
	}
	for name, breakIt := range bad {
		l := DefaultLayout()
		breakIt(&l)
		if err := l.Validate(); !errors.Is(err, ErrBadLayout) {
			t.Errorf("%s: Validate = %v, want ErrBadLayout", name, err)
		}
		if l.MaxWorkers() != 0 || l.MaxTick() != -1 {
			t.Errorf("%s: MaxWorkers %d, MaxTick %d of a bad layout", name, l.MaxWorkers(), l.MaxTick())
		}
		if _, err := l.Compose(0, 0, 0); !errors.Is(err, ErrBadLayout) {
			t.Errorf("%s: Compose = %v, want ErrBadLayout", name, err)
		}
		if _, err := l.Decompose(0); !errors.Is(err, ErrBadLayout) {
			t.Errorf("%s: Decompose = %v, want ErrBadLayout", name, err)
		}
		if _, err := l.TickOf(start); !errors.Is(err, ErrBadLayout) {
			t.Errorf("%s: TickOf = %v, want ErrBadLayout", name, err)
		}
		if _, err := New(l, Lease{MaxTick: 1, ValidUntil: start}, Options{}); !errors.Is(err, ErrBadLayout) {
			t.Errorf("%s: New = %v, want ErrBadLayout", name, err)
		}
	}
}

// TestLayoutCapacity pins the numbers DESIGN.md and the doc comments give.
func TestLayoutCapacity(t *testing.T) {
	for _, c := range []struct {
		name          string
		l             Layout
		workers       uint64
		perTick       uint64
		lastTickStart string
	}{
		{"DefaultLayout", DefaultLayout(), 1024, 4096, "2095-09-07T15:47:35.551Z"},
		{"JSSafeLayout", JSSafeLayout(), 32, 128, "2095-09-07T15:47:35.551Z"},
	} {
		if got := c.l.MaxWorkers(); got != c.workers {
			t.Errorf("%s: MaxWorkers = %d, want %d", c.name, got, c.workers)
		}
		last, err := c.l.Compose(c.l.MaxTick(), c.workers-1, c.perTick-1)
		if err != nil {
			t.Fatalf("%s: Compose of the last ID: %v", c.name, err)
		}
		p := mustDecompose(t, c.l, last)
		if p.Sequence != c.perTick-1 {
			t.Errorf("%s: last sequence %d, want %d", c.name, p.Sequence, c.perTick-1)
		}
		if got := p.Time.Format("2006-01-02T15:04:05.000Z07:00"); got != c.lastTickStart {
			t.Errorf("%s: last tick starts %s, want %s", c.name, got, c.lastTickStart)
		}
	}
	if !DefaultLayout().Epoch.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("DefaultLayout's epoch moved: %v", DefaultLayout().Epoch)
	}
}

func TestJSSafeLayoutIDsAreExactInJavaScript(t *testing.T) {
	const maxSafe = 1<<53 - 1
	l := JSSafeLayout()
	largest, err := l.Compose(l.MaxTick(), l.MaxWorkers()-1, 1<<l.SequenceBits-1)
	if err != nil {
		t.Fatal(err)
	}
	if largest != maxSafe {
		t.Errorf("largest JSSafeLayout ID %d, want 2^53-1 = %d", largest, int64(maxSafe))
	}
	if float64(largest) != maxSafe || int64(float64(largest)) != largest {
		t.Errorf("largest ID %d is not exact as a float64", largest)
	}
	// A generator near the end of the layout, borrowing, stays below too.
	c := newFakeClock(start)
	c.setTick(l, l.MaxTick()-2)
	g := mustNew(t, l, Lease{Worker: 31, MinTick: -1, MaxTick: l.MaxTick(), ValidUntil: c.now().Add(time.Hour)},
		Options{Clock: c.now, MaxBorrow: time.Hour})
	for _, id := range mintAbove(t, g, -1, 3<<l.SequenceBits) {
		if id > maxSafe {
			t.Fatalf("ID %d above 2^53-1", id)
		}
	}
	mustNextErr(t, g, ErrLeaseExhausted)
}

func TestComposeDecomposeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	layouts := []Layout{DefaultLayout(), JSSafeLayout(),
		{Epoch: start, Unit: time.Second, TimeBits: 32, WorkerBits: 1, SequenceBits: 30},
		{Epoch: start, Unit: time.Millisecond, TimeBits: 1, WorkerBits: 61, SequenceBits: 1},
		{Epoch: start, Unit: time.Millisecond, TimeBits: 3, WorkerBits: 2, SequenceBits: 1},
	}
	for _, l := range layouts {
		maxW, maxS := l.MaxWorkers()-1, uint64(1)<<l.SequenceBits-1
		cases := [][3]uint64{{0, 0, 0}, {uint64(l.MaxTick()), maxW, maxS}}
		for range 10000 {
			cases = append(cases, [3]uint64{
				rng.Uint64N(uint64(l.MaxTick()) + 1), rng.Uint64N(maxW + 1), rng.Uint64N(maxS + 1)})
		}
		for _, c := range cases {
			tick := int64(c[0])
			id, err := l.Compose(tick, c[1], c[2])
			if err != nil {
				t.Fatalf("%+v: Compose%v: %v", l, c, err)
			}
			p := mustDecompose(t, l, id)
			want := Parts{Tick: tick, Worker: c[1], Sequence: c[2], Time: l.Epoch.Add(time.Duration(tick) * l.Unit)}
			if p != want {
				t.Fatalf("%+v: Decompose(Compose%v) = %+v", l, c, p)
			}
			if back, err := l.TickOf(p.Time); err != nil || back != tick {
				t.Fatalf("TickOf(%v) = %d, %v; want %d", p.Time, back, err, tick)
			}
		}
		// And the other way: every ID of the layout's bits takes apart and
		// back together.
		for range 10000 {
			id := int64(rng.Uint64N(1 << (l.TimeBits + l.WorkerBits + l.SequenceBits)))
			p := mustDecompose(t, l, id)
			if back, err := l.Compose(p.Tick, p.Worker, p.Sequence); err != nil || back != id {
				t.Fatalf("Compose(Decompose(%d)) = %d, %v", id, back, err)
			}
		}
	}
}

func TestComposeRefusesPartsOutsideFields(t *testing.T) {
	l := DefaultLayout()
	for _, c := range []struct {
		tick        int64
		worker, seq uint64
	}{
		{-1, 0, 0}, {l.MaxTick() + 1, 0, 0}, {math.MinInt64, 0, 0}, {math.MaxInt64, 0, 0},
		{0, 1024, 0}, {0, math.MaxUint64, 0}, {0, 0, 4096}, {0, 0, math.MaxUint64},
	} {
		if id, err := l.Compose(c.tick, c.worker, c.seq); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Compose(%d, %d, %d) = %d, %v; want ErrOutOfRange", c.tick, c.worker, c.seq, id, err)
		}
	}
}

func TestDecomposeRefusesForeignIDs(t *testing.T) {
	js := JSSafeLayout()
	for _, id := range []int64{-1, math.MinInt64, 1 << 53, math.MaxInt64} {
		if p, err := js.Decompose(id); !errors.Is(err, ErrBadID) {
			t.Errorf("Decompose(%d) = %+v, %v; want ErrBadID", id, p, err)
		}
	}
	if _, err := DefaultLayout().Decompose(math.MaxInt64); err != nil {
		t.Errorf("Decompose(2^63-1) under the 63-bit DefaultLayout: %v", err)
	}
}

func TestTickOf(t *testing.T) {
	l := DefaultLayout()
	lastStart := l.Epoch.Add(time.Duration(l.MaxTick()) * l.Unit)
	for _, c := range []struct {
		at   time.Time
		want int64
	}{
		{l.Epoch, 0},
		{l.Epoch.Add(time.Millisecond - 1), 0},
		{l.Epoch.Add(time.Millisecond), 1},
		{l.Epoch.Add(time.Hour), 3_600_000},
		{lastStart, l.MaxTick()},
		{lastStart.Add(time.Millisecond - 1), l.MaxTick()},
	} {
		if got, err := l.TickOf(c.at); err != nil || got != c.want {
			t.Errorf("TickOf(%v) = %d, %v; want %d", c.at, got, err, c.want)
		}
	}
	for _, at := range []time.Time{
		l.Epoch.Add(-1), {}, lastStart.Add(time.Millisecond),
		time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(math.MaxInt64/2, 0),
	} {
		if got, err := l.TickOf(at); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("TickOf(%v) = %d, %v; want ErrOutOfRange", at, got, err)
		}
	}
}

func TestPartsString(t *testing.T) {
	l := DefaultLayout()
	id, err := l.Compose(mustTickOf(t, l, start.Add(123*time.Millisecond)), 7, 3)
	if err != nil {
		t.Fatal(err)
	}
	const want = "2026-03-01T12:00:00.123Z worker 7 sequence 3 (tick 5140800123)"
	if got := mustDecompose(t, l, id).String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
