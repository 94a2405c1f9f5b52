package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/idnode/idnode/internal/testjson"
)

// report writes what the runs found: a line of what ran and the load averages it met, then
// each failing test with its count and the last lines of its first failure.
func report(w io.Writer, o options, f *findings, failing []testjson.Outcomes) {
	load := fmt.Sprintf("%d busy loops", o.busy)
	if o.load > 0 {
		load += fmt.Sprintf(", each run started at a load average of %v or more", o.load)
	}
	if o.race {
		load += ", -race"
	}
	if len(o.beside) > 0 {
		load += ", go test " + strings.Join(o.beside, " ") + " beside"
	}
	fmt.Fprintf(w, "flakefind: %d runs of %s (%s; %v): %d of %d tests (and packages) failed at least once\n",
		o.runs, strings.Join(o.packages, " "), load, f.load, len(failing), f.tally.Tests())
	for _, f := range failing {
		fmt.Fprintf(w, "FAIL %d/%d  %s %s\n", f.Failed, f.Failed+f.Passed+f.Skipped, f.Package, f.Test)
		for _, l := range f.FailureLines(len(f.FirstFailureOutput)) {
			fmt.Fprintf(w, "        %s\n", l)
		}
	}
}
