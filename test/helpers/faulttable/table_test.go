package faulttable

import (
	"strings"
	"testing"
	"time"
)

// A section is found by its marker lines and replaced with the rest of the page kept; tables
// that differ only in their times compare equal, and a different reason does not.
func TestSection(t *testing.T) {
	page := "intro\n<!-- begin x: written by TestX -->\nold\n<!-- end x -->\noutro\n"
	s, err := findSection(page, "x", "TestX")
	if err != nil {
		t.Fatal(err)
	}
	if s.committed != "old\n" {
		t.Errorf("committed = %q, want %q", s.committed, "old\n")
	}
	if got, want := s.with("new\n"), "intro\n<!-- begin x: written by TestX -->\nnew\n<!-- end x -->\noutro\n"; got != want {
		t.Errorf("rewritten page = %q, want %q", got, want)
	}
	for _, bad := range []string{"no markers\n", page + page} {
		if _, err := findSection(bad, "x", "TestX"); err == nil {
			t.Errorf("findSection(%q) found a section", bad)
		}
	}

	table := func(took time.Duration, why string) string {
		return Table{Columns: []string{"reason"}, Rows: []Row{{Situation: "s", Took: took, Cells: []string{why}}}}.Render()
	}
	fast, slow := table(time.Microsecond, "NO_QUORUM"), table(3*time.Second, "NO_QUORUM")
	if !strings.Contains(fast, "| s | < 1 ms | NO_QUORUM |") || !strings.Contains(slow, "| s | 3.0 s | NO_QUORUM |") {
		t.Errorf("rendered tables:\n%s\n%s", fast, slow)
	}
	if withoutTimes(fast) != withoutTimes(slow) {
		t.Errorf("tables differing in their times only compare unequal:\n%s\n%s", fast, slow)
	}
	if withoutTimes(fast) == withoutTimes(table(time.Microsecond, "—")) {
		t.Error("tables differing in a reason compare equal")
	}
}
