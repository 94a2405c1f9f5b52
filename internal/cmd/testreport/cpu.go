package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// A CI run keeps both cores busy from its start to its end, so what shortens it is less work,
// and a package's elapsed time says little about how much of the work is its own: a package
// that waits on its nodes is slow and cheap. So run has go test start each test binary
// through "testreport cpu FILE.cpu" (go test's -exec), which appends the CPU time the binary
// used, with the processes it waited for (the nodes it started), to FILE.cpu beside the
// events; slowest ranks the packages by it. Docker's containers are not the test's children,
// so their CPU is not counted.

// cpuSuffix names the file beside the events that holds each test binary's CPU time.
const cpuSuffix = ".cpu"

// cpuUse is one test binary's line in that file.
type cpuUse struct {
	Dir    string  `json:"dir"` // the package's folder, where go test runs its binary
	User   float64 `json:"user_s"`
	System float64 `json:"system_s"`
}

// execFlag is go test's -exec value that measures each test binary into file.
func execFlag(file string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	// go test splits the value at spaces, keeping quoted fields whole and unescaped.
	for _, s := range []string{self, file} {
		if strings.ContainsAny(s, `'"`) {
			return "", fmt.Errorf("%q: a quote in the path", s)
		}
	}
	return "'" + self + "' cpu '" + file + "'", nil
}

// measure runs the test binary args[1] with the arguments after it, passes it the signals go
// test sends (a timeout's SIGQUIT among them), appends its CPU time to the file args[0] once it
// ends, and returns its exit status.
func measure(args []string) int {
	if len(args) < 2 {
		fail(usage)
	}
	file, bin := args[0], args[1:]
	cmd := exec.Command(bin[0], bin[1:]...)
	err := runPassingSignals(cmd)
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "testreport cpu: %v\n", err)
		return 1
	}
	if user, system, ok := cpuTime(cmd.ProcessState); ok {
		dir, _ := os.Getwd()
		if werr := appendCPU(file, cpuUse{Dir: dir, User: user.Seconds(), System: system.Seconds()}); werr != nil {
			fmt.Fprintf(os.Stderr, "testreport cpu: the CPU time will not be kept: %v\n", werr)
		}
	}
	return exitStatus(err)
}

// runPassingSignals runs cmd on this process's standard streams, passing it the signals
// this process is sent to end (a timeout's SIGQUIT among them), and has the kernel kill it
// should this process die. It returns cmd.Wait's error, or Start's (cmd.ProcessState nil).
func runPassingSignals(cmd *exec.Cmd) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = dieWithParent()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s) // it may have ended meanwhile
		}
	}()
	return cmd.Wait()
}

// appendCPU appends u to file as one line: whole lines, so that the test binaries of one run,
// ending at once, do not mix theirs.
func appendCPU(file string, u cpuUse) error {
	line, err := json.Marshal(u)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	return errors.Join(err, f.Close())
}

// readCPU adds the lines of file to uses; a file that is not there adds none (a run that kept
// no CPU times), one that cannot be read is an error.
func readCPU(file string, uses []cpuUse) ([]cpuUse, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return uses, nil
	}
	if err != nil {
		return uses, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var u cpuUse
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return uses, fmt.Errorf("%s: %w", file, err)
		}
		uses = append(uses, u)
	}
	return uses, sc.Err()
}

// writeMostCPU prints the n packages that used the most CPU time, each folder relative to
// root, and the total.
func writeMostCPU(w io.Writer, uses []cpuUse, n int, root string) error {
	var total float64
	for _, u := range uses {
		total += u.User + u.System
	}
	slices.SortFunc(uses, func(a, b cpuUse) int {
		return cmp.Compare(b.User+b.System, a.User+a.System)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "the %d packages that used the most CPU (of %d, %s in all; user+system seconds of the test binary and the processes it waited for, not Docker's):\n",
		min(n, len(uses)), len(uses), time.Duration(total*float64(time.Second)).Round(time.Second))
	for _, u := range uses[:min(n, len(uses))] {
		dir := u.Dir
		if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
			dir = rel
		}
		fmt.Fprintf(&b, "  %8.1fs  %s\n", u.User+u.System, dir)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
