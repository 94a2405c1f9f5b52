package hilo

import (
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// While the callers' rate doubles every 50 ms from 1,000 to 1,000,000 IDs/s and every fetch
// takes 10 ms, the ranges double too and each lasts only a few tens of milliseconds, so 20% of a
// range (the fixed prefetch point) is often less than a fetch: the generator has to start the
// fetch by the measured rate. Only the very first call may wait. The ramp runs on a simulated
// clock (rampSim), so the outcome depends on the schedule alone, not on the machine's speed.
func TestGeneratorKeepsAheadOfARisingRate(t *testing.T) {
	sim := newRampSim(t, 10*time.Millisecond)
	sim.ramp(1000, 1_000_000, 50*time.Millisecond)
	st := sim.g.Stats()
	t.Logf("%d IDs: %+v", sim.ids, st)
	if st.Stalls != 1 || st.Waits != 1 {
		t.Errorf("callers waited for %d of %d fetches (%d calls waited); want only the first call to wait",
			st.Stalls, st.Fetches, st.Waits)
	}
	if st.RangeSize < 1<<16 {
		t.Errorf("the ranges grew to %d only; want the ramp to have doubled them many times", st.RangeSize)
	}
}

// rampSim runs one caller at a rising rate on a simulated clock, against a fakeSource whose
// fetches take fetchTime of that clock. Only the caller moves the clock: before each call it
// moves to the call's time, landing the fetch in flight first when it is due by then; a
// caller about to wait (the generator's beforeWait) moves it to the fetch's landing. So what
// the generator sees — the rate, its fetches' time, whether a range ran out before the next
// one landed — is exactly the schedule's.
type rampSim struct {
	t         *testing.T
	g         *Generator
	fetchTime time.Duration
	ids       int64

	clockMu sync.Mutex
	clock   time.Time

	arrivals chan *simFetch // fetches as they reach the source, in order
	landings <-chan struct{}
	// Caller-side bookkeeping: fetches the generator started that reached the source, were
	// released to land, and whose outcome was installed.
	arrived, released, landed int
	inflight                  *simFetch
}

// simFetch is a fetch held "on the network" until the clock reaches due.
type simFetch struct {
	due     time.Time
	release chan struct{}
}

func newRampSim(t *testing.T, fetchTime time.Duration) *rampSim {
	s := &rampSim{t: t, fetchTime: fetchTime, clock: time.Unix(1_000_000, 0), arrivals: make(chan *simFetch, 1)}
	src := newFakeSource()
	src.now = s.now
	src.gate = func(int, *idnodev1.NextHiLoRequest) error {
		f := &simFetch{due: s.now().Add(fetchTime), release: make(chan struct{})}
		s.arrivals <- f
		select {
		case <-f.release:
			return nil
		case <-time.After(testTimeout):
			return status.Error(codes.Unavailable, "the simulation never released the fetch")
		}
	}
	s.g = newGen(t, src, "orders")
	s.g.now = s.now
	s.landings = fetched(s.g)
	s.g.beforeWait = s.landInflight
	return s
}

func (s *rampSim) now() time.Time {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	return s.clock
}

func (s *rampSim) setClock(at time.Time) {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	if at.After(s.clock) {
		s.clock = at
	}
}

// ramp takes IDs at from IDs/s, doubling every step up to to, which it holds for one step.
func (s *rampSim) ramp(from, to float64, step time.Duration) {
	ctx := testCtx(s.t)
	begin := s.now()
	at := begin
	for rate := from; ; rate = min(2*rate, to) {
		end := at.Add(step)
		for at.Before(end) {
			at = at.Add(time.Duration(float64(time.Second) / rate))
			s.advance(at)
			if _, err := s.g.NextID(ctx); err != nil {
				s.t.Fatalf("NextID at %v of the ramp: %v", at.Sub(begin), err)
			}
			s.ids++
			at = s.now() // later than planned when the call waited
		}
		if rate == to {
			return
		}
	}
}

// advance moves the clock to at, landing on the way the fetch in flight if it is due by then.
func (s *rampSim) advance(at time.Time) {
	for {
		s.settle()
		if s.inflight == nil || s.inflight.due.After(at) {
			break
		}
		s.landInflight()
	}
	s.setClock(at)
}

// settle waits until every fetch the generator started has reached the source (so it is due
// fetchTime after the clock's time when it started) and every released one has landed.
func (s *rampSim) settle() {
	for s.landed < s.released {
		select {
		case <-s.landings:
			s.landed++
		case <-time.After(testTimeout):
			s.t.Fatalf("a released fetch did not land within %v", testTimeout)
		}
	}
	s.g.mu.Lock()
	started := int(s.g.fetchSeq)
	s.g.mu.Unlock()
	for s.arrived < started {
		select {
		case s.inflight = <-s.arrivals:
			s.arrived++
		case <-time.After(testTimeout):
			s.t.Fatalf("a started fetch did not reach the source within %v", testTimeout)
		}
	}
}

// landInflight moves the clock to the fetch in flight's landing and lets it land.
func (s *rampSim) landInflight() {
	s.settle()
	if s.inflight == nil {
		s.t.Fatal("a caller waits, but no fetch is in flight")
	}
	s.setClock(s.inflight.due)
	close(s.inflight.release)
	s.inflight = nil
	s.released++
}
