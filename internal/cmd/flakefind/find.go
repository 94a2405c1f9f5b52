package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idnode/idnode/internal/testjson"
)

// findings are the tallied outcomes of the runs and the load averages they met.
type findings struct {
	tally *testjson.Tally
	load  loadRange
}

// find runs the packages' tests o.runs times under o's load, saying how each run went (and
// the 1-minute load average at its start and end) on progress, and tallies the outcomes.
func find(ctx context.Context, o options, progress io.Writer) (*findings, error) {
	loadCtx, stopLoad := context.WithCancel(ctx)
	var load sync.WaitGroup
	defer load.Wait()
	defer stopLoad()
	spin(loadCtx, o.busy, &load)
	var besideDone, besideFailed atomic.Int64
	if len(o.beside) > 0 {
		besideRuns(loadCtx, o, &besideDone, &besideFailed, &load)
	}

	events := io.Discard
	if o.events != "" {
		file, err := os.OpenFile(o.events, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return &findings{tally: testjson.NewTally()}, fmt.Errorf("-events: %w", err)
		}
		defer file.Close()
		events = file
	}
	f := &findings{tally: testjson.NewTally()}
	tally := f.tally
	for i := range o.runs {
		if ctx.Err() != nil {
			return f, fmt.Errorf("interrupted after %d runs", i)
		}
		if o.load > 0 {
			if err := awaitLoad(ctx, o.load, loadAverage, progress); err != nil {
				return f, fmt.Errorf("before run %d: %w", i+1, err)
			}
		}
		began := time.Now()
		loadAtStart := f.load.note()
		failedBefore := len(tally.Failing())
		run := testjson.NewTally()
		if err := oneRun(ctx, o, events, func(e testjson.Event) { tally.Event(e); run.Event(e) }); err != nil {
			return f, err
		}
		loadAtEnd := f.load.note()
		var names []string
		for _, f := range run.Failing() {
			names = append(names, f.Test)
		}
		line := fmt.Sprintf("run %d/%d: %d failed in %v, load average %s to %s", i+1, o.runs, len(names),
			time.Since(began).Round(100*time.Millisecond), loadAtStart, loadAtEnd)
		if len(names) > 0 {
			line += " (" + strings.Join(names, ", ") + ")"
		}
		if n := len(tally.Failing()) - failedBefore; n > 0 {
			line += fmt.Sprintf("; %d failing for the first time", n)
		}
		if len(o.beside) > 0 {
			line += fmt.Sprintf("; beside: %d runs, %d failed", besideDone.Load(), besideFailed.Load())
		}
		fmt.Fprintln(progress, line)
	}
	return f, nil
}

// oneRun runs go test -json of the packages once, copies its events to events and gives each
// to each. A failing go test is what flakefind looks for; only one that prints no event at
// all is an error.
func oneRun(ctx context.Context, o options, events io.Writer, each func(testjson.Event)) error {
	cmd := goTest(ctx, o, o.packages, true)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	seen := 0
	var writeErr error
	readErr := testjson.Read(out, func(e testjson.Event, ok bool, line []byte) {
		if ok {
			seen++
			if writeErr == nil {
				_, writeErr = events.Write(append(line, '\n'))
			}
			each(e)
		}
	})
	if readErr != nil {
		_, _ = io.Copy(io.Discard, out)
	}
	err = cmd.Wait()
	switch {
	case readErr != nil:
		return fmt.Errorf("reading go test's events: %w", readErr)
	case seen == 0 && err != nil:
		return fmt.Errorf("go test: %w", err)
	case writeErr != nil:
		return fmt.Errorf("-events: %w", writeErr)
	}
	return ctx.Err()
}

// goTest is the go test command of packages under o (with -json when json).
func goTest(ctx context.Context, o options, packages []string, json bool) *exec.Cmd {
	args := []string{"test", "-count=1", "-timeout", o.timeout.String()}
	if json {
		args = append(args, "-json")
	}
	if o.race {
		args = append(args, "-race")
	}
	if o.run != "" && json {
		args = append(args, "-run", o.run)
	}
	// No -- before the packages: go test would pass them to the test binary. parse made
	// sure they name packages.
	cmd := exec.CommandContext(ctx, "go", append(args, packages...)...)
	killGroupOnCancel(cmd)
	return cmd
}
