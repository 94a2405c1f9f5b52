package testjson

import (
	"cmp"
	"slices"
	"strings"
)

// maxFailureLines bounds the output a Tally keeps of a test's first failure.
const maxFailureLines = 40

// PackageLevel stands for a package's own outcome in a Tally, under its test name: a package
// can fail with no test failing (a build error, a panic, a timeout, its TestMain).
const PackageLevel = "(package)"

// Outcomes are one test's results over the runs a Tally saw.
type Outcomes struct {
	Package, Test      string
	Passed, Failed     int
	Skipped            int
	FirstFailureOutput []string // its last lines, at most maxFailureLines
}

// Tally counts each test's outcomes over any number of runs.
type Tally struct {
	tests map[testKey]*Outcomes
	// output is each running test's output, for the first failure's lines.
	output map[testKey][]string
}

// NewTally is an empty Tally.
func NewTally() *Tally { return &Tally{tests: map[testKey]*Outcomes{}, output: map[testKey][]string{}} }

// Event counts e.
func (t *Tally) Event(e Event) {
	test := e.Test
	if test == "" {
		test = PackageLevel
	}
	switch e.Action {
	case "build-output":
		// A build's errors are its package's output; the package's own fail event follows
		// (build-fail says no more). ImportPath is "pkg [pkg.test]" for a test's build.
		e.Package, _, _ = strings.Cut(e.ImportPath, " ")
		e.Action = "output"
	case "build-fail":
		return
	}
	k := testKey{e.Package, test}
	switch {
	case e.Action == "output":
		if !isFraming(e.Output) {
			lines := append(t.output[k], strings.TrimRight(e.Output, "\n"))
			if len(lines) > maxFailureLines {
				lines = slices.Delete(lines, 0, len(lines)-maxFailureLines)
			}
			t.output[k] = lines
		}
	case e.Ended():
		o := t.tests[k]
		if o == nil {
			o = &Outcomes{Package: e.Package, Test: test}
			t.tests[k] = o
		}
		switch e.Action {
		case "pass":
			o.Passed++
		case "skip":
			o.Skipped++
		case "fail":
			o.Failed++
			if o.FirstFailureOutput == nil {
				o.FirstFailureOutput = t.output[k]
			}
		}
		delete(t.output, k)
	}
}

// Failing are the tests (and packages, as PackageLevel) that failed at least once, most
// failures first.
func (t *Tally) Failing() []Outcomes {
	var out []Outcomes
	for _, o := range t.tests {
		if o.Failed > 0 {
			out = append(out, *o)
		}
	}
	slices.SortFunc(out, func(a, b Outcomes) int {
		return cmp.Or(cmp.Compare(b.Failed, a.Failed), cmp.Compare(a.Package, b.Package), cmp.Compare(a.Test, b.Test))
	})
	return out
}

// Tests is how many tests (and packages) the Tally saw end.
func (t *Tally) Tests() int { return len(t.tests) }
