// Package testjson reads the event stream of go test -json (see go doc cmd/test2json): it
// prints the lines plain go test would have printed, tallies each test's outcomes over runs,
// and ranks the slowest packages and tests. CI's test run (internal/cmd/testreport) and the
// flake finder (internal/cmd/flakefind) share it.
package testjson

import (
	"bufio"
	"encoding/json"
	"io"
)

// Event is one line of go test -json.
type Event struct {
	Action  string // start, run, pause, cont, pass, fail, skip, output, bench, build-output, build-fail
	Package string
	// ImportPath names the package of a build-output or build-fail event.
	ImportPath string  `json:",omitempty"`
	Test       string  `json:",omitempty"`
	Elapsed    float64 `json:",omitempty"` // seconds, on pass, fail and skip
	Output     string  `json:",omitempty"`
}

// Ended says whether e is the outcome of a test (Test set) or a package (Test empty).
func (e Event) Ended() bool { return e.Action == "pass" || e.Action == "fail" || e.Action == "skip" }

// maxLine bounds one line of the stream: a test that prints a longer line without a newline
// gets it cut there, as test2json itself cuts long lines.
const maxLine = 4 << 20

// Read calls each for every line of r: the event it holds, or ok false with the line itself
// when it is not an event (go test prints a few such lines, a build's among them).
func Read(r io.Reader, each func(e Event, ok bool, line []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		var e Event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			each(Event{}, false, line)
			continue
		}
		each(e, true, line)
	}
	return sc.Err()
}
