// Command flakefind runs the tests of chosen packages again and again under a load it makes,
// and reports each test that failed in any run, with how often and how its first failure
// ended. scripts/flakefind.sh runs it; docs/testing.md says how to use it.
//
//	flakefind [-n N] [-busy K] [-beside PACKAGES] [-race] [-load L] [-run REGEXP] [-timeout D] [-events FILE] PACKAGE...
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
)

const usage = "usage: flakefind [-n N] [-busy K] [-beside PACKAGES] [-race] [-load L] [-run REGEXP] [-timeout D] [-events FILE] PACKAGE..."

// Bounds on what a caller may ask for.
const (
	maxRuns = 10_000
	maxBusy = 256
	maxLoad = 1000
)

type options struct {
	runs     int
	busy     int
	load     float64 // the 1-minute load average each run waits for before it starts, or 0
	beside   []string
	race     bool
	run      string
	timeout  time.Duration
	events   string // file the runs' go test -json events are appended to, or ""
	packages []string
}

func main() {
	o, err := parse(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "flakefind: %v\n%s\n", err, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	f, err := find(ctx, o, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "flakefind: %v (%v)\n", err, f.load)
		os.Exit(1)
	}
	failing := f.tally.Failing()
	report(os.Stdout, o, f, failing)
	if len(failing) > 0 {
		os.Exit(1)
	}
}

// parse reads the command line; it refuses fewer than one run and packages that name none.
func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("flakefind", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.runs, "n", 10, "how many times to run the packages' tests")
	fs.IntVar(&o.busy, "busy", 0, "how many busy loops to spin meanwhile, each taking a core")
	fs.Float64Var(&o.load, "load", 0, "before each run, wait for the 1-minute load average to reach this")
	beside := fs.String("beside", "", "packages (space-separated) whose tests run again and again beside, as more load")
	fs.BoolVar(&o.race, "race", false, "run with the race detector (both runs)")
	fs.StringVar(&o.run, "run", "", "run only the tests matching this regexp (go test -run)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "go test -timeout of each run")
	fs.StringVar(&o.events, "events", "", "append every run's go test -json events to this file (for testreport slowest)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.packages = fs.Args()
	o.beside = strings.Fields(*beside)
	switch {
	case o.runs < 1 || o.runs > maxRuns:
		return o, fmt.Errorf("-n %d: give 1 to %d runs", o.runs, maxRuns)
	case o.busy < 0 || o.busy > maxBusy:
		return o, fmt.Errorf("-busy %d: give 0 to %d loops", o.busy, maxBusy)
	case !(o.load >= 0 && o.load <= maxLoad): // NaN too
		return o, fmt.Errorf("-load %v: give a load average from 0 to %d", o.load, maxLoad)
	case o.timeout <= 0:
		return o, fmt.Errorf("-timeout %v: give a positive duration", o.timeout)
	}
	if err := namesPackages(o.packages); err != nil {
		return o, err
	}
	if len(o.beside) > 0 {
		if err := namesPackages(o.beside); err != nil {
			return o, fmt.Errorf("-beside: %w", err)
		}
	}
	return o, nil
}
