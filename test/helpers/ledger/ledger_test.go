package ledger

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func atStamp(s int64) string { return fmt.Sprintf("at %d", s) }

func TestNoRepeatWhenEverythingIsHandedOutOnce(t *testing.T) {
	l := New(atStamp)
	l.Identity(1, 2, 1)
	l.Identity(3, 3, 2)
	l.HiLo(1, 100, 1)
	l.HiLo(101, 200, 2)
	l.ID("server-side ID", "users/1", 1)
	l.ID("numeric ID", "users/1", 2) // another kind: no repeat
	if got := l.Repeats(); len(got) != 0 {
		t.Fatalf("Repeats() = %q, want none", got)
	}
	if got := l.Acked(); got != 6 {
		t.Errorf("Acked() = %d, want 6", got)
	}
}

func TestRepeatsFindsAnIDTwiceAndOverlappingRanges(t *testing.T) {
	l := New(atStamp)
	l.ID("server-side ID", "users/7", 1)
	l.ID("server-side ID", "users/7", 4)
	l.Identity(1, 5, 2)
	l.Identity(5, 6, 3)
	l.HiLo(1, 100, 1)
	l.HiLo(50, 150, 5)
	got := l.Repeats()
	for _, want := range []string{
		"server-side ID users/7 (first at 1, again at 4)",
		"identity block [1, 5] (at 2) and [5, 6] (at 3) overlap",
		"HiLo range [1, 100] (at 1) and [50, 150] (at 5) overlap",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Repeats() = %q, missing %q", got, want)
		}
	}
	if len(got) != 3 {
		t.Errorf("Repeats() has %d entries, want 3: %q", len(got), got)
	}
}

func TestRepeatsAcrossACrash(t *testing.T) {
	before := New(atStamp)
	before.ID("numeric ID", "42", 1)
	before.Identity(1, 10, 1)
	after := New(atStamp)
	after.ID("numeric ID", "42", 9)
	after.Identity(10, 12, 9)
	got := strings.Join(before.Repeats(after), "\n")
	for _, want := range []string{"numeric ID 42 (first at 1, again at 9)", "[1, 10] (at 1) and [10, 12] (at 9) overlap"} {
		if !strings.Contains(got, want) {
			t.Errorf("Repeats(after) = %q, missing %q", got, want)
		}
	}
}

// A crash just after stamp 2 must keep the maxima answered up to it and may lose the rest:
// a cluster that came back below the kept maxima lost a promise, which the caller sees by
// comparing with what Until(2).Maxima() reports.
func TestUntilKeepsTheMaximaAnsweredBeforeTheCrash(t *testing.T) {
	l := New(atStamp)
	l.Identity(1, 5, 1)
	l.Identity(6, 9, 2)
	l.Identity(10, 20, 3)
	l.HiLo(1, 100, 2)
	l.HiLo(101, 200, 3)
	l.ID("server-side ID", "users/1", 2)
	l.ID("server-side ID", "users/2", 3)
	kept := l.Until(2)
	if identity, hilo := kept.Maxima(); identity != 9 || hilo != 100 {
		t.Errorf("Until(2).Maxima() = %d, %d, want 9, 100", identity, hilo)
	}
	if identity, hilo := l.Maxima(); identity != 20 || hilo != 200 {
		t.Errorf("Maxima() = %d, %d, want 20, 200", identity, hilo)
	}
	if got := kept.IDs("server-side ID"); got != 1 {
		t.Errorf("Until(2) kept %d server-side IDs, want 1", got)
	}
	// A restart that forgot the block [6, 9] hands 6 out again: a lost maximum shows as a repeat.
	after := New(atStamp)
	after.Identity(6, 7, 4)
	if got := kept.Repeats(after); len(got) != 1 {
		t.Errorf("Repeats after a lost maximum = %q, want one overlap", got)
	}
}

func TestLowestSince(t *testing.T) {
	l := New(atStamp)
	l.Identity(1, 5, 1)
	m := l.Mark()
	if identity, hilo := l.LowestSince(m); identity != 0 || hilo != 0 {
		t.Errorf("LowestSince(now) = %d, %d, want 0, 0", identity, hilo)
	}
	l.Identity(9, 9, 2)
	l.Identity(7, 8, 2)
	l.HiLo(300, 400, 2)
	if identity, hilo := l.LowestSince(m); identity != 7 || hilo != 300 {
		t.Errorf("LowestSince = %d, %d, want 7, 300", identity, hilo)
	}
}
