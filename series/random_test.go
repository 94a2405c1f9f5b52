package series

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestRandomJournalsVerify applies random issues and voids, with clocks that jump ahead and
// fall behind across month ends, to both policies: every answer is one the rules allow, and
// the journal always verifies.
func TestRandomJournalsVerify(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	s := mustNew(t)
	s.create("g", "G{year}{month}-{n}", 2, gapless, 0)
	s.create("a", "A{year}{month}-{n:03}", 2, gaps, 0)
	clock := at(2026, 1, 30, 0, 0, 0)
	for step := 0; step < 400; step++ {
		clock += int64(rng.IntN(int(12 * time.Hour / time.Millisecond)))
		proposed := clock - int64(rng.IntN(int(48*time.Hour/time.Millisecond))) // some proposers behind
		name := []string{"g", "a"}[rng.IntN(2)]
		def := mustDefinition(t, s.Store, name)
		request := fmt.Sprintf("%s-%d", name, step)
		if rng.IntN(3) > 0 {
			e, err := s.issue(name, request, proposed)
			if err != nil {
				t.Fatal(err)
			}
			if e.GetTimeMs() < def.GetClockMs() || e.GetTimeMs() < proposed {
				t.Fatalf("issue at %d: clock went back (series %d, proposed %d)", e.GetTimeMs(), def.GetClockMs(), proposed)
			}
			continue
		}
		period, number := def.GetCurrentPeriod(), def.GetLastNumber()-int64(rng.IntN(3))+1
		_, err := s.void(voidOf(name, period, number, request, proposed))
		switch {
		case err == nil, errors.Is(err, ErrAlreadyVoided), errors.Is(err, ErrNotIssued), number < 1 && errors.Is(err, ErrBadInput):
		case errors.Is(err, ErrGapless) && name == "g":
		default:
			t.Fatalf("void %s %d of %q: %v", period, number, name, err)
		}
	}
	for _, name := range []string{"g", "a"} {
		r := mustVerifyClean(t, s.Store, name)
		if r.Voided == 0 || r.Issued == 0 {
			t.Fatalf("%q: %+v, want issues and voids", name, r)
		}
	}
}
