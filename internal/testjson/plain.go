package testjson

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// maxTestOutput bounds what Plain holds of one test's output until the test ends: a test that
// prints more keeps its last maxTestOutput bytes, after a line that says how much went.
const maxTestOutput = 1 << 20

// Plain prints an event stream as plain go test prints its run (without -v): the output of
// each test that fails, its --- FAIL line first and a failed subtest's inside its parent's,
// then every package's own lines (ok, FAIL, no test files, a panic, what its TestMain
// printed); build errors go to errOut.
type Plain struct {
	out, errOut io.Writer
	// held is the output of each test still running, by package and test.
	held   map[testKey]*heldOutput
	failed bool // a package failed, or its build
}

type testKey struct{ pkg, test string }

type heldOutput struct {
	text    strings.Builder
	dropped int // bytes dropped from the front to stay within maxTestOutput
}

// NewPlain is a Plain that writes to out, and build errors to errOut.
func NewPlain(out, errOut io.Writer) *Plain {
	return &Plain{out: out, errOut: errOut, held: map[testKey]*heldOutput{}}
}

// Event prints what plain go test would print for e, if anything.
func (p *Plain) Event(e Event) {
	switch {
	case e.Action == "build-output":
		fmt.Fprint(p.errOut, e.Output)
	case e.Action == "build-fail":
		p.failed = true
	case e.Action == "output" && e.Test != "":
		p.hold(testKey{e.Package, e.Test}, e.Output)
	case e.Action == "output":
		// A package's closing FAIL line with tests still running: the binary died under them
		// (a panic, the timeout), and their output, the panic's among it, tells why.
		if strings.HasPrefix(e.Output, "FAIL\t"+e.Package+"\t") {
			p.flushRunning(e.Package)
		}
		// go test -json runs the test binary verbose; its lone PASS is what plain go test
		// leaves out.
		if e.Output != "PASS\n" {
			fmt.Fprint(p.out, e.Output)
		}
	case e.Ended() && e.Test != "":
		k := testKey{e.Package, e.Test}
		if e.Action == "fail" {
			report := p.report(k)
			if i := strings.LastIndex(e.Test, "/"); i >= 0 {
				// The verbose binary prints a subtest's lines as its parent's; plain go test
				// prints them inside the parent's, indented.
				p.hold(testKey{e.Package, e.Test[:i]}, indent(report))
			} else {
				fmt.Fprint(p.out, report)
			}
		} else {
			p.printPanic(k)
		}
		delete(p.held, k)
	case e.Ended():
		p.failed = p.failed || e.Action == "fail"
		if e.Action == "fail" {
			p.flushRunning(e.Package)
		}
		for k := range p.held {
			if k.pkg == e.Package {
				delete(p.held, k)
			}
		}
	}
}

// flushRunning prints the output of package pkg's tests that have not ended, as failed.
func (p *Plain) flushRunning(pkg string) {
	var running []testKey
	for k := range p.held {
		if k.pkg == pkg {
			running = append(running, k)
		}
	}
	slices.SortFunc(running, func(a, b testKey) int { return strings.Compare(a.test, b.test) })
	for _, k := range running {
		fmt.Fprint(p.out, p.report(k))
		delete(p.held, k)
	}
}

// printPanic prints what test k held from a panic's first line on (panicPrefix): the output of
// a binary that died, given to a test that had passed.
func (p *Plain) printPanic(k testKey) {
	h := p.held[k]
	if h == nil {
		return
	}
	text := h.text.String()
	// A newline before the text makes the panic's index in the result its index in the text.
	if i := strings.Index("\n"+text, "\n"+panicPrefix); i >= 0 {
		fmt.Fprint(p.out, text[i:])
	}
}

// End prints the line plain go test ends a run with that a package failed in: FAIL.
func (p *Plain) End() {
	if p.failed {
		fmt.Fprintln(p.out, "FAIL")
	}
}

// Line prints a line of the stream that is not an event, as go test printed it.
func (p *Plain) Line(line []byte) { fmt.Fprintf(p.out, "%s\n", line) }

func (p *Plain) hold(k testKey, s string) {
	if isFraming(s) {
		return
	}
	h := p.held[k]
	if h == nil {
		h = &heldOutput{}
		p.held[k] = h
	}
	h.text.WriteString(s)
	if over := h.text.Len() - maxTestOutput; over > 0 {
		rest := h.text.String()[over:]
		h.dropped += over
		h.text.Reset()
		h.text.WriteString(rest)
	}
}

// report is test k's output as plain go test prints a failed test's: its result line, then
// what it printed, its subtests' reports among it.
func (p *Plain) report(k testKey) string {
	h := p.held[k]
	if h == nil {
		return ""
	}
	text := h.text.String()
	if h.dropped > 0 {
		text = fmt.Sprintf("    [%s: %d bytes of earlier output dropped]\n", k.test, h.dropped) + text
	}
	// The verbose binary prints the result line when the test ends, after its output.
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "--- FAIL: "+k.test+" (") {
			return l + strings.Join(slices.Delete(lines, i, i+1), "")
		}
	}
	return text
}

// isFraming says whether s is one of the lines a verbose test binary adds around its tests
// (=== RUN, === PAUSE, === CONT, === NAME), which plain go test does not print.
func isFraming(s string) bool {
	s = strings.TrimLeft(s, " ")
	for _, f := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(s, f) {
			return true
		}
	}
	return false
}

// indent indents each line of s by four spaces.
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "")
}
