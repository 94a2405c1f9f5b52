package main

import (
	"fmt"
	"io"
	"os"

	"github.com/idnode/idnode/internal/testjson"
)

// Bounds of what appendFailures keeps of one failed test: the end of a CI log that a reader
// is shown is short, and a test that failed three times over should not take all of it.
const (
	failureLines    = 20
	failureLineSize = 400
)

// appendFailures appends failing to the file name: each failed test (or package) with the
// last lines of its output. A parent whose subtest failed says nothing of its own, and is
// named on its own line only.
func appendFailures(name string, failing []testjson.Outcomes) error {
	if len(failing) == 0 {
		return nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	writeFailures(f, failing)
	return f.Close()
}

// writeFailures writes failing as appendFailures keeps it: each test's own messages (a
// Fatalf's, say) that its last lines do not hold, then those.
func writeFailures(w io.Writer, failing []testjson.Outcomes) {
	for _, o := range failing {
		fmt.Fprintf(w, "--- FAIL: %s %s\n", o.Package, o.Test)
		lines := o.FailureLines(failureLines)
		if n := len(o.FirstFailureOutput) - failureLines; n > 0 {
			fmt.Fprintf(w, "    (%d lines before)\n", n)
		}
		for _, l := range lines {
			if len(l) > failureLineSize {
				l = l[:failureLineSize] + " …"
			}
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
