package testjson

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Timing is how long a package's test binary, or a top-level test, ran.
type Timing struct {
	Package, Test string // Test empty for a package
	Elapsed       time.Duration
	Action        string // pass, fail or skip
}

// Timings collects the elapsed time of every package and top-level test of a stream.
type Timings struct {
	Packages, Tests []Timing
}

// Event records e if it ends a package or a top-level test (a subtest's time is its
// parent's too).
func (t *Timings) Event(e Event) {
	if !e.Ended() || strings.Contains(e.Test, "/") {
		return
	}
	tm := Timing{Package: e.Package, Test: e.Test, Elapsed: time.Duration(e.Elapsed * float64(time.Second)), Action: e.Action}
	if e.Test == "" {
		t.Packages = append(t.Packages, tm)
	} else {
		t.Tests = append(t.Tests, tm)
	}
}

// Slowest is the n longest of ts, longest first.
func Slowest(ts []Timing, n int) []Timing {
	ts = slices.Clone(ts)
	slices.SortStableFunc(ts, func(a, b Timing) int { return cmp.Compare(b.Elapsed, a.Elapsed) })
	return ts[:min(n, len(ts))]
}

// WriteSlowest writes the n slowest packages and the n slowest top-level tests of t.
func (t *Timings) WriteSlowest(w io.Writer, n int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the %d slowest packages (of %d):\n", min(n, len(t.Packages)), len(t.Packages))
	for _, p := range Slowest(t.Packages, n) {
		fmt.Fprintf(&b, "  %8.1fs  %-4s  %s\n", p.Elapsed.Seconds(), p.Action, p.Package)
	}
	fmt.Fprintf(&b, "the %d slowest tests (of %d):\n", min(n, len(t.Tests)), len(t.Tests))
	for _, p := range Slowest(t.Tests, n) {
		fmt.Fprintf(&b, "  %8.1fs  %-4s  %s %s\n", p.Elapsed.Seconds(), p.Action, p.Package, p.Test)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
