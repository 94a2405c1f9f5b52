package chaostest

import (
	"slices"
	"testing"
	"time"

	"github.com/idnode/idnode/test/history"
)

// An answer's forms become the block the identity checks expect: its lowest and highest value
// and the values between that it lacks, which the checks refuse where nothing is claimed; a
// form that did not read back leaves the answer out.
func TestBlockOfOpaqueAnswers(t *testing.T) {
	values := map[string]int64{"A": 7, "B": 5, "C": 6, "D": 9}
	for _, c := range []struct {
		forms       []string
		ok          bool
		first, last int64
		skipped     []int64
	}{
		{[]string{"B", "C", "A"}, true, 5, 7, nil},
		{[]string{"A"}, true, 7, 7, nil},
		{[]string{"B", "D"}, true, 5, 9, []int64{6, 7, 8}},
		{[]string{"A", "unread"}, false, 0, 0, nil},
	} {
		ok, first, last, skipped := blockOf(c.forms, values)
		if ok != c.ok || first != c.first || last != c.last || !slices.Equal(skipped, c.skipped) {
			t.Errorf("blockOf(%q) = %v, %d, %d, %v; want %v, %d, %d, %v", c.forms, ok, first, last, skipped, c.ok, c.first, c.last, c.skipped)
		}
	}
}

// The checks the schedule hands the values to fail where they must: two answers holding one
// value are a duplicate, and an answer with a hole nobody claimed is not linearizable.
func TestOpaqueValuesFailTheIdentityChecks(t *testing.T) {
	values := map[string]int64{"A": 1, "B": 2, "C": 3, "D": 5}
	check := func(answers ...[]string) history.Report {
		rec := history.New()
		for i, forms := range answers {
			ok, first, last, skipped := blockOf(forms, values)
			if !ok {
				t.Fatalf("blockOf(%q) did not read back", forms)
			}
			// One after the other: each answered before the next was asked.
			rec.AddIdentity(history.IdentityRecord{Prefix: chaosOpaqueCollection, Count: int64(len(forms)),
				Call: time.Duration(2 * i), Return: time.Duration(2*i + 1), Known: true, First: first, Last: last, Skipped: skipped})
		}
		return rec.CheckWith(history.CheckOptions{Timeout: chaosCheckTimeout})
	}
	if rep := check([]string{"A"}, []string{"B", "C"}); !rep.OK() {
		t.Errorf("blocks 1 and 2–3 one after the other: %v", rep)
	}
	if rep := check([]string{"A", "B"}, []string{"B"}); rep.Duplicates == 0 {
		t.Errorf("value 2 handed out twice: %v, want a duplicate", rep)
	}
	if rep := check([]string{"A", "B", "C"}, []string{"D"}); rep.Linearizable {
		t.Errorf("value 4 skipped with nothing claimed: %v, want not linearizable", rep)
	}
}
