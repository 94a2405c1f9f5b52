package history

import (
	"slices"
	"strings"
	"testing"
)

// claimAt adds a claim of values (ascending) for owner, called at call and finished at ret
// with outcome (won, when acknowledged, says whether it was won).
func claimAt(r *Recorder, prefix, owner string, call, ret int, outcome Outcome, won bool, values ...int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.claims = append(r.claims, &ClaimOp{r: r, Seq: len(r.claims), Prefix: prefix, Values: values, Owner: owner,
		Call: ms(call), ret: ms(ret), outcome: outcome, won: won})
}

// block adds an acknowledged identity operation [call, ret] → first … last except skipped.
func block(r *Recorder, prefix string, call, ret int, first, last int64, skipped ...int64) {
	r.AddIdentity(IdentityRecord{Prefix: prefix, Count: last - first + 1 - int64(len(skipped)), Call: ms(call), Return: ms(ret),
		Known: true, First: first, Last: last, Skipped: skipped})
}

func TestIdentitiesSkipClaimedValues(t *testing.T) {
	r := New()
	claimAt(r, "orders", "importer", 0, 10, Acknowledged, true, 3, 5)
	claimAt(r, "Orders", "web", 5, 15, Acknowledged, false, 5)      // refused: importer has it
	block(r, "orders", 20, 30, 1, 4, 3)                             // count 3: 1, 2, 4
	block(r, "ORDERS", 40, 50, 6, 6)                                // 5 passed over before the first
	claimAt(r, "orders", "late", 60, 70, Acknowledged, false, 5, 9) // 5 is claimed and passed
	rep := r.Check(checkTimeout)
	if !rep.OK() {
		t.Fatalf("identities skipping claimed values: %v", rep.Err())
	}
	want := "ids=4 identities=4 hilo_ranges=0 duplicates=0 linearizable=true claims_won=1 claims_lost=2 claims_unknown=0"
	if got := rep.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if v, ok := r.MaxIdentity("orders"); !ok || v != 6 {
		t.Errorf("MaxIdentity = %d, %v; want 6", v, ok)
	}
}

// The chaos schedule's promise: an identity never equals an ID whose claim was won, whatever
// the timing, and no ID is won twice.
func TestIdentityEqualToWonClaimIsDuplicate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(r *Recorder)
	}{
		{"identity after the claim", func(r *Recorder) {
			claimAt(r, "orders", "importer", 0, 10, Acknowledged, true, 3)
			block(r, "orders", 20, 30, 1, 3)
		}},
		{"identity concurrent with the claim", func(r *Recorder) {
			claimAt(r, "orders", "importer", 0, 30, Acknowledged, true, 3)
			block(r, "orders", 10, 20, 3, 3)
		}},
		{"claim spelt another way", func(r *Recorder) {
			claimAt(r, "ORDERS", "importer", 0, 10, Acknowledged, true, 2)
			block(r, "orders", 20, 30, 1, 3)
		}},
		{"one ID won twice", func(r *Recorder) {
			claimAt(r, "orders", "a", 0, 10, Acknowledged, true, 7, 8)
			claimAt(r, "Orders", "b", 5, 15, Acknowledged, true, 8)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			tc.build(r)
			rep := r.Check(checkTimeout)
			if rep.Duplicates != 1 || rep.OK() || rep.Linearizable {
				t.Fatalf("duplicates = %d, linearizable = %v (%q); want 1 and false", rep.Duplicates, rep.Linearizable, rep.DuplicateExamples)
			}
			if !strings.Contains(rep.DuplicateExamples[0], "claim #") {
				t.Errorf("example %q does not name the claim", rep.DuplicateExamples[0])
			}
		})
	}
}

// A block's holes, and the values passed over before its first, must be exactly the values
// claimed when it was handed out.
func TestHolesMustBeClaimed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(r *Recorder)
	}{
		{"hole nobody claimed", func(r *Recorder) {
			block(r, "orders", 0, 10, 1, 3, 2)
		}},
		{"hole whose claim was refused", func(r *Recorder) {
			claimAt(r, "orders", "a", 0, 10, Acknowledged, false, 2)
			block(r, "orders", 20, 30, 1, 3, 2)
		}},
		{"hole claimed only after the block was answered", func(r *Recorder) {
			block(r, "orders", 0, 10, 1, 3, 2)
			claimAt(r, "orders", "a", 20, 30, Acknowledged, true, 2)
		}},
		{"claimed value not skipped", func(r *Recorder) {
			claimAt(r, "orders", "a", 0, 10, Acknowledged, true, 2)
			block(r, "orders", 20, 30, 1, 3, 3) // 3 skipped instead of 2: no duplicate, wrong hole
		}},
		{"first passed over a value nobody claimed", func(r *Recorder) {
			claimAt(r, "orders", "a", 0, 10, Acknowledged, true, 1)
			block(r, "orders", 20, 30, 3, 3)
		}},
		{"claim refused with nothing in its way", func(r *Recorder) {
			block(r, "orders", 0, 10, 1, 1)
			claimAt(r, "orders", "a", 20, 30, Acknowledged, false, 2)
		}},
		{"claim won of a value handed out earlier", func(r *Recorder) {
			block(r, "orders", 0, 10, 1, 4)
			claimAt(r, "orders", "a", 20, 30, Acknowledged, true, 4)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			tc.build(r)
			if err := r.Linearizable(checkTimeout); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestClaimOfUnknownOutcome(t *testing.T) {
	t.Run("took effect", func(t *testing.T) {
		r := New()
		block(r, "orders", 0, 10, 1, 1)
		claimAt(r, "orders", "a", 15, 16, Unknown, false, 2)
		block(r, "orders", 20, 30, 3, 3)
		if rep := r.Check(checkTimeout); !rep.OK() || rep.ClaimsUnknown != 1 {
			t.Fatalf("%v (%+v)", rep.Err(), rep)
		}
	})
	t.Run("did not", func(t *testing.T) {
		r := New()
		block(r, "orders", 0, 10, 1, 1)
		claimAt(r, "orders", "a", 15, 16, Unknown, false, 2)
		block(r, "orders", 20, 30, 2, 2)
		claimAt(r, "orders", "b", 40, 50, Acknowledged, true, 3) // nothing in its way either
		if rep := r.Check(checkTimeout); !rep.OK() {
			t.Fatal(rep.Err())
		}
	})
	t.Run("pending counts as unknown", func(t *testing.T) {
		r := New()
		r.BeginClaim("orders", "a", 1)
		block(r, "orders", 20_000, 20_010, 2, 2)
		if rep := r.Check(checkTimeout); !rep.OK() || rep.ClaimsUnknown != 1 {
			t.Fatalf("%v (%+v)", rep.Err(), rep)
		}
	})
}

// An identity whose answer was lost skips claimed values too, if it took effect.
func TestUnknownIdentitySkipsClaims(t *testing.T) {
	for _, tc := range []struct {
		first int64
		ok    bool
	}{{1, true}, {3, true}, {2, false}, {4, false}} {
		r := New()
		claimAt(r, "orders", "a", 0, 10, Acknowledged, true, 2)
		unknown(r, "orders", 20, 21, 1) // took 1, or nothing
		block(r, "orders", 30, 40, tc.first, tc.first)
		if err := r.Linearizable(checkTimeout); (err == nil) != tc.ok {
			t.Errorf("next identity %d: %v, want ok=%v", tc.first, err, tc.ok)
		}
	}
}

// A forced seed that lowers the counter below a claimed value brings the claim back into
// play: the model must not have forgotten it when the counter passed it.
func TestForcedSeedBelowAClaim(t *testing.T) {
	r := New()
	claimAt(r, "orders", "a", 0, 10, Acknowledged, true, 3)
	r.AddSeed(SeedRecord{Name: "orders", Value: 10, Force: true, Call: ms(20), Return: ms(30), Known: true, Result: 10})
	r.AddSeed(SeedRecord{Name: "orders", Value: 2, Force: true, Call: ms(40), Return: ms(50), Known: true, Result: 2})
	block(r, "orders", 60, 70, 4, 5)
	if rep := r.Check(checkTimeout); !rep.OK() {
		t.Fatalf("identities after a forced seed below a claim: %v", rep.Err())
	}
	block(r, "orders", 80, 90, 6, 8, 7) // 7 was never claimed
	if err := r.Linearizable(checkTimeout); err == nil {
		t.Fatal("a hole nobody claimed accepted after a forced seed")
	}
}

func TestClaimOpFirstOutcomeStands(t *testing.T) {
	r := New()
	op := r.BeginClaim("orders", "a", 5, 2, 5) // unsorted, repeated
	op.Won()
	op.Unknown()
	if !slices.Equal(op.Values, []int64{2, 5}) {
		t.Errorf("Values = %v, want [2 5]", op.Values)
	}
	id := r.BeginIdentity("orders", 3)
	id.Done(1, 4, 2)
	rep := r.Check(checkTimeout)
	if !rep.OK() || rep.ClaimsWon != 1 || rep.ClaimsUnknown != 0 || rep.Identities != 3 {
		t.Fatalf("%v (%+v)", rep.Err(), rep)
	}
}

func TestCheckClaimHolders(t *testing.T) {
	r := New()
	claimAt(r, "orders", "a", 0, 10, Acknowledged, true, 1, 2)
	claimAt(r, "Orders", "b", 0, 10, Acknowledged, false, 1, 2)
	claimAt(r, "orders", "c", 20, 21, Unknown, false, 7, 8)
	claimAt(r, "orders", "d", 20, 21, Unknown, false, 9)
	claimAt(r, "invoices", "e", 0, 10, Acknowledged, true, 5) // another prefix
	block(r, "orders", 30, 40, 3, 4)
	if got := r.ClaimedValues("ORDERS"); !slices.Equal(got, []int64{1, 2, 7, 8, 9}) {
		t.Errorf("ClaimedValues = %v", got)
	}
	for _, tc := range []struct {
		name    string
		holders map[int64]string
		want    string // "" for no problem
	}{
		{"as told", map[int64]string{1: "a", 2: "a", 7: "c", 8: "c"}, ""},
		{"unknown claims not applied", map[int64]string{1: "a", 2: "a"}, ""},
		{"won claim lost", map[int64]string{1: "a"}, `claim #0 of [1 2] by "a" was won, but its owner holds 1`},
		{"refused claim applied", map[int64]string{1: "b", 2: "b"}, `claim #1 of [1 2] by "b" was refused, but its owner holds 2`},
		{"unknown claim half applied", map[int64]string{1: "a", 2: "a", 8: "c"}, "not all or nothing"},
		{"holder that claimed no such value", map[int64]string{1: "a", 2: "a", 9: "c"}, `value 9 is held by "c", whose claim did not name it`},
		{"held and handed out", map[int64]string{1: "a", 2: "a", 4: "a"}, `value 4 is held by "a" and was handed out as an identity`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := r.CheckClaimHolders("orders", tc.holders)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("CheckClaimHolders = %v; want %q", err, tc.want)
			}
		})
	}
	r2 := New()
	claimAt(r2, "orders", "a", 0, 10, Acknowledged, true, 1)
	claimAt(r2, "orders", "a", 20, 30, Acknowledged, true, 2)
	if err := r2.CheckClaimHolders("orders", map[int64]string{1: "a", 2: "a"}); err == nil || !strings.Contains(err.Error(), "two claims") {
		t.Fatalf("one owner, two claims: %v", err)
	}
}

// A block that steps over more claimed values than an answer lists ends early:
// the answer is the cut block, and the counter is where the whole block left it.
func TestIdentityBlockCutAfterManySkippedClaims(t *testing.T) {
	r := New()
	var many []int64
	for v := int64(2); v <= 101; v++ {
		many = append(many, v)
	}
	claimAt(r, "orders", "importer", 0, 10, Acknowledged, true, many...)
	r.AddIdentity(IdentityRecord{Prefix: "orders", Count: 2, Call: ms(20), Return: ms(30), Known: true, First: 1, Last: 1})
	block(r, "orders", 40, 50, 103, 103) // the whole block of two reached 102
	if rep := r.Check(checkTimeout); !rep.OK() {
		t.Fatalf("a block cut after many skipped claims: %v", rep.Err())
	}
}
