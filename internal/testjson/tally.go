package testjson

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// Bounds of what a Tally keeps of a test's first failure: its last lines, and its last
// messages among all its lines.
const (
	maxFailureLines    = 40
	maxFailureMessages = 10
)

// message matches a line a test itself wrote with t.Log, t.Error or t.Fatal, which the testing
// package starts with the file and line of the call, and a panic's first line (go test's
// timeout among them). The lines of a dump (a cluster's logs, printed when a test fails; the
// goroutines' stacks, after a panic) follow such a line and can push it out of a test's last lines.
var message = regexp.MustCompile(`^( *[\w.-]+\.go:\d+: |` + panicPrefix + `)`)

// isPanic says whether l, a line of a test's output, starts a panic of its test binary: the
// testing package indents what a test logs, and the runtime prints a panic from the line's start.
// test2json gives the output of a binary that dies to the test it last named, which may be
// one that has passed, when parallel tests' lines interleave: its pass event then comes after
// the panic, whose lines belong to the package that failed.
func isPanic(l string) bool { return strings.HasPrefix(l, panicPrefix) }

// panicPrefix starts the first line of a panic the runtime prints.
const panicPrefix = "panic: "

// PackageLevel stands for a package's own outcome in a Tally, under its test name: a package
// can fail with no test failing (a build error, a panic, a timeout, its TestMain).
const PackageLevel = "(package)"

// Outcomes are one test's results over the runs a Tally saw.
type Outcomes struct {
	Package, Test      string
	Passed, Failed     int
	Skipped            int
	FirstFailureOutput []string // its last lines, at most maxFailureLines
	// FirstFailureMessages are the last of its own messages, at most maxFailureMessages,
	// wherever they were in its output.
	FirstFailureMessages []string
}

// FailureLines is what a reader needs of o's first failure in at most about tail+10 lines:
// its own messages that its last tail lines do not hold, then those last lines.
func (o Outcomes) FailureLines(tail int) []string {
	last := o.FirstFailureOutput
	if len(last) > tail {
		last = last[len(last)-tail:]
	}
	var out []string
	for _, m := range o.FirstFailureMessages {
		if !slices.Contains(last, m) {
			out = append(out, m)
		}
	}
	if len(out) > 0 && len(o.FirstFailureOutput) > len(last) {
		out = append(out, "    […]")
	}
	return append(out, last...)
}

// Tally counts each test's outcomes over any number of runs.
type Tally struct {
	tests map[testKey]*Outcomes
	// output and messages are each running test's last lines and messages, for its first
	// failure's.
	output, messages map[testKey][]string
}

// NewTally is an empty Tally.
func NewTally() *Tally {
	return &Tally{tests: map[testKey]*Outcomes{}, output: map[testKey][]string{}, messages: map[testKey][]string{}}
}

// keepLast appends l to lines and drops the first ones past n.
func keepLast(lines []string, l string, n int) []string {
	lines = append(lines, l)
	if len(lines) > n {
		lines = slices.Delete(lines, 0, len(lines)-n)
	}
	return lines
}

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
			l := strings.TrimRight(e.Output, "\n")
			t.output[k] = keepLast(t.output[k], l, maxFailureLines)
			if message.MatchString(l) {
				t.messages[k] = keepLast(t.messages[k], l, maxFailureMessages)
			}
		}
	case e.Ended():
		if test == PackageLevel {
			t.endRunning(e.Package, e.Action == "fail")
		}
		t.end(k, e.Action)
	}
}

// end counts action (pass, skip or fail) for test k.
func (t *Tally) end(k testKey, action string) {
	o := t.tests[k]
	if o == nil {
		o = &Outcomes{Package: k.pkg, Test: k.test}
		t.tests[k] = o
	}
	switch action {
	case "pass":
		o.Passed++
	case "skip":
		o.Skipped++
	case "fail":
		o.Failed++
		if o.FirstFailureOutput == nil {
			o.FirstFailureOutput, o.FirstFailureMessages = t.output[k], t.messages[k]
		}
	}
	if action != "fail" {
		t.givePanicToPackage(k)
	}
	delete(t.output, k)
	delete(t.messages, k)
}

// givePanicToPackage moves the lines of a panic in the output of test k, which did not fail,
// to its package's: they are the binary's, not the test's (isPanic).
func (t *Tally) givePanicToPackage(k testKey) {
	i := slices.IndexFunc(t.output[k], isPanic)
	if i < 0 {
		return
	}
	pkg := testKey{k.pkg, PackageLevel}
	for _, l := range t.output[k][i:] {
		t.output[pkg] = keepLast(t.output[pkg], l, maxFailureLines)
	}
	t.messages[pkg] = keepLast(t.messages[pkg], t.output[k][i], maxFailureMessages)
}

// endRunning ends the tests of package pkg that printed something and have not ended: when
// the package failed, its binary died under them (a panic, the timeout's among them), which
// go test reports as the package's failure alone; they failed, and their output says why.
func (t *Tally) endRunning(pkg string, failed bool) {
	for k := range t.output {
		if k.pkg != pkg || k.test == PackageLevel {
			continue
		}
		if failed {
			t.end(k, "fail")
		} else {
			delete(t.output, k)
			delete(t.messages, k)
		}
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
