// Command testreport runs go test for CI: it prints what plain go test prints while keeping
// the outcome and time of each package and test (go test -json's pass, fail and skip events)
// in a file, and later ranks the slowest packages and tests of the runs that file holds.
//
//	testreport run -events FILE [-failures FILE] [-C DIR] -- [go test flags] [packages]
//	testreport slowest [-n N] FILE...
//	testreport cpu FILE TESTBINARY [ARGS...]
//	testreport programs [-n N] [-o FILE] -- COMMAND [ARGS...]
//
// run appends those events to FILE and exits with go test's exit status, whatever happens to
// the file; with -failures it also appends each failed test's last lines of output to that
// file once go test ends, so that a CI log whose end is all a reader sees can end with why
// its tests failed, however far up their output scrolled. It has go test start each test
// binary through cpu (-exec), which keeps the CPU time the binary used in FILE.cpu. slowest
// prints the N (10) slowest packages and top-level tests of all the FILEs (.ci/run keeps one
// per go test run it starts, as two run at once), and the N packages that used the most CPU.
// programs runs a command with the machine's process accounting on, and prints the N (20)
// programs that used the most CPU meanwhile, wherever they ran: what a CI run's CPU goes to
// besides the test binaries (docs/suite-cpu.md).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/idnode/idnode/internal/testjson"
)

const usage = `usage: testreport run -events FILE [-failures FILE] [-C DIR] -- [go test flags] [packages]
       testreport slowest [-n N] FILE...
       testreport cpu FILE TESTBINARY [ARGS...]
       testreport programs [-n N] [-o FILE] -- COMMAND [ARGS...]`

func main() {
	if len(os.Args) < 2 {
		fail(usage)
	}
	switch os.Args[1] {
	case "run":
		os.Exit(run(os.Args[2:]))
	case "slowest":
		slowest(os.Args[2:])
	case "cpu":
		os.Exit(measure(os.Args[2:]))
	case "programs":
		os.Exit(programs(os.Args[2:]))
	default:
		fail(usage)
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}

// run runs go test -json with args and returns go test's exit status.
func run(args []string) int {
	fs := flag.NewFlagSet("testreport run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	events := fs.String("events", "", "the file the run's pass, fail and skip events are appended to")
	failures := fs.String("failures", "", "the file each failed test's last lines are appended to")
	dir := fs.String("C", "", "the directory go test runs in (go -C)")
	if err := fs.Parse(args); err != nil || *events == "" {
		fail(usage)
	}
	goArgs := []string{"test", "-json"}
	if cpuFile, err := filepath.Abs(*events + cpuSuffix); err != nil {
		fmt.Fprintf(os.Stderr, "testreport: no CPU times will be kept: %v\n", err)
	} else if value, err := execFlag(cpuFile); err != nil {
		fmt.Fprintf(os.Stderr, "testreport: no CPU times will be kept: %v\n", err)
	} else {
		goArgs = append(goArgs, "-exec", value)
	}
	if *dir != "" {
		goArgs = append([]string{"-C", *dir}, goArgs...)
	}
	cmd := exec.Command("go", append(goArgs, fs.Args()...)...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(fmt.Sprintf("testreport: %v", err))
	}
	if err := cmd.Start(); err != nil {
		fail(fmt.Sprintf("testreport: %v", err))
	}
	tally := record(stdout, *events)
	status := exitStatus(cmd.Wait())
	if *failures != "" {
		if err := appendFailures(*failures, tally.Failing()); err != nil {
			fmt.Fprintf(os.Stderr, "testreport: the failures will not be kept: %v\n", err)
		}
	}
	return status
}

// record prints the events of r as plain go test would, appending each that ends a package
// or a test to the file events (the output stays out of it: it is printed), and tallies them.
// A file that cannot be written is said once on stderr and the printing goes on.
func record(r io.Reader, events string) *testjson.Tally {
	var file io.Writer = io.Discard
	f, err := os.OpenFile(events, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport: the events will not be kept: %v\n", err)
	} else {
		defer f.Close()
		file = f
	}
	plain := testjson.NewPlain(os.Stdout, os.Stderr)
	tally := testjson.NewTally()
	err = testjson.Read(r, func(e testjson.Event, ok bool, line []byte) {
		if ok && e.Ended() && file != io.Discard {
			if _, err := fmt.Fprintf(file, "%s\n", line); err != nil {
				fmt.Fprintf(os.Stderr, "testreport: the events will not be kept: %v\n", err)
				file = io.Discard
			}
		}
		if ok {
			plain.Event(e)
			tally.Event(e)
		} else {
			plain.Line(line)
		}
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport: reading go test's events: %v\n", err)
		// go test must not block on a pipe nobody reads.
		_, _ = io.Copy(io.Discard, r)
	}
	plain.End()
	return tally
}

// exitStatus is the status go test exited with, as a shell would report it.
func exitStatus(err error) int {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
		return 1
	}
}

// slowest prints the slowest packages and tests of the events in the files args name.
func slowest(args []string) {
	fs := flag.NewFlagSet("testreport slowest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n := fs.Int("n", 10, "how many packages and tests to show")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 || *n < 1 {
		fail(usage)
	}
	var (
		timings testjson.Timings
		uses    []cpuUse
		err     error
	)
	for _, name := range fs.Args() {
		if err := readTimings(name, &timings); err != nil {
			fail(fmt.Sprintf("testreport: %v", err))
		}
		if uses, err = readCPU(name+cpuSuffix, uses); err != nil {
			fail(fmt.Sprintf("testreport: %v", err))
		}
	}
	if err := timings.WriteSlowest(os.Stdout, *n); err != nil {
		fail(fmt.Sprintf("testreport: %v", err))
	}
	if len(uses) == 0 {
		return
	}
	root, _ := os.Getwd()
	if err := writeMostCPU(os.Stdout, uses, *n, root); err != nil {
		fail(fmt.Sprintf("testreport: %v", err))
	}
}

// readTimings adds the events of the file name to timings.
func readTimings(name string, timings *testjson.Timings) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := testjson.Read(f, func(e testjson.Event, ok bool, _ []byte) {
		if ok {
			timings.Event(e)
		}
	}); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
