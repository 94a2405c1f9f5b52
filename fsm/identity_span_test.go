package fsm

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// applyWithin applies an identity increment and fails the test if it takes longer than limit:
// a regression to a loop over the span then fails instead of hanging the test binary.
func applyWithin(t *testing.T, f *FSM, name string, count int64, limit time.Duration) IdentityRange {
	t.Helper()
	done := make(chan IdentityRange, 1)
	l := identityLog(t, name, count)
	go func() {
		res, _ := f.Apply(l).(IdentityBatchResult)
		if len(res.Ranges) != 1 {
			res.Ranges = []IdentityRange{{Err: fmt.Errorf("batch answered %d ranges", len(res.Ranges))}}
		}
		done <- res.Ranges[0]
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(limit):
		t.Fatalf("increment of %q by %d still applying after %v", name, count, limit)
		return IdentityRange{}
	}
}

// A claim below a counter seeded to 2^63-2 sent the skip loop round past
// 2^63-1 for ever, wedging every replica. The last value is handed out, then the next call
// overflows.
func TestIdentitySkipNearMaxInt64Ends(t *testing.T) {
	f := New()
	mustClaim(t, f, "", "p/5")
	mustSeed(t, f, "p", math.MaxInt64-1, false)
	if r := applyWithin(t, f, "p", 1, 5*time.Second); r.Err != nil || r.First != math.MaxInt64 || r.Last != math.MaxInt64 || r.Skipped != nil {
		t.Fatalf("p| at 2^63-2 = %+v, want the last value", r)
	}
	if r := applyWithin(t, f, "p", 1, 5*time.Second); !errors.Is(r.Err, ErrCounterOverflow) {
		t.Fatalf("p| at 2^63-1 = %+v, want ErrCounterOverflow", r)
	}
	mustSeed(t, f, "q", math.MaxInt64-3, false)
	mustClaim(t, f, "", "q/9223372036854775806")
	if r := applyWithin(t, f, "q", 2, 5*time.Second); r.Err != nil || r.First != math.MaxInt64-2 || r.Last != math.MaxInt64 || !slices.Equal(r.Skipped, []int64{math.MaxInt64 - 1}) {
		t.Fatalf("q| ×2 with 2^63-2 claimed = %+v", r)
	}
}

// Skipping claims costs the claims in the span, not its width: an increment of 100,000 with
// claims around it makes no per-value lookups (on main each value built a key string and
// looked it up: 100,000 allocations a call).
func TestIdentitySkipCostsClaimsNotWidth(t *testing.T) {
	f := New()
	mustClaim(t, f, "", "w/1", "w/3", "w/900000000000")
	mustIdentity(t, f, "w", 1, "") // w/2: the claim w/1 moved First
	data := identityLog(t, "w", 100_000)
	allocs := testing.AllocsPerRun(20, func() { f.Apply(data) })
	if allocs > 50 {
		t.Errorf("an increment of 100,000 past claims allocates %.0f times; want a handful", allocs)
	}
}

func identityLog(t *testing.T, name string, count int64) *raft.Log {
	t.Helper()
	data, err := Encode(IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: name, Count: count}}})
	if err != nil {
		t.Fatal(err)
	}
	return &raft.Log{Type: raft.LogCommand, Data: data}
}

// freeValues agrees with a walk over every value (what it replaced) on random claims,
// releases, seeds and counts; small numbers, so the walk is short.
func TestFreeValuesMatchesAWalkOverTheSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	for round := range 200 {
		d := newDatabase()
		claimed := map[int64]bool{}
		for range rng.IntN(60) {
			n := 1 + rng.Int64N(80)
			key := fmt.Sprintf("p/%d", n)
			if claimed[n] && rng.IntN(3) == 0 {
				d.removeClaim(key, "/")
				delete(claimed, n)
				continue
			}
			claimed[n] = true
			d.addClaim(key, claim{id: key}, "/")
		}
		current, count := rng.Int64N(70), 1+rng.Int64N(20)
		got, ok := freeValues(d.claimedNumbers["p"], current, count)
		want := walkFreeValues(claimed, current, count)
		if !ok || got.First != want.First || got.Last != want.Last || !slices.Equal(got.Skipped, want.Skipped) {
			t.Fatalf("round %d: claims %v, current %d, count %d: got %+v (%v), want %+v", round, slices.Sorted(maps.Keys(claimed)), current, count, got, ok, want)
		}
	}
}

// walkFreeValues is the span walk freeValues replaced, for values far from any overflow.
func walkFreeValues(claimed map[int64]bool, current, count int64) IdentityRange {
	var r IdentityRange
	v := current + 1
	for claimed[v] {
		v++
	}
	r.First = v
	for left := count - 1; left > 0; {
		v++
		if claimed[v] {
			r.Skipped = append(r.Skipped, v)
			continue
		}
		left--
	}
	r.Last = v
	return r
}
