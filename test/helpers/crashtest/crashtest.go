// Package crashtest kills a test's child process with SIGKILL in the middle of its work, for
// the tests that check a durable file survives a crash at any point.
//
// The child is the test binary itself running one helper test (a TestHelperProcess that
// skips unless its environment says otherwise), which prints each thing it has made durable
// on a line of its own with one unbuffered write: every line the parent reads was done before
// the kill.
package crashtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Context bounds a crash test: timeout, or less if the test's own deadline comes sooner, with
// ten seconds left over to report. It is cancelled when the test ends.
func Context(t *testing.T, timeout time.Duration) context.Context {
	if d, ok := t.Deadline(); ok && time.Until(d) < timeout+10*time.Second {
		timeout = time.Until(d) - 10*time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// RunAndKill runs the test binary's test named helper as a child with env added to its
// environment, and hands each line the child prints to line. Once want lines have been read
// it kills the child with SIGKILL and goes on reading what is already in the pipe. An error
// from line fails the test with the child's stderr; so does a child that exits by itself
// before the kill or outlives ctx. It returns how many lines the child printed.
func RunAndKill(ctx context.Context, t testing.TB, helper string, env []string, want int, line func(string) error) int {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+helper+"$")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := 0
	killed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if err := line(sc.Text()); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("after %d lines: %v (stderr: %s)", n, err, stderr.Bytes())
		}
		n++
		if n == want && !killed {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("timed out after %d lines: %v", n, ctx.Err())
	}
	var exitErr *exec.ExitError
	if !killed || !errors.As(err, &exitErr) || exitErr.Exited() {
		t.Fatalf("child was not killed mid-stream (killed=%v, %d lines, wait: %v, stderr: %s)",
			killed, n, err, stderr.Bytes())
	}
	return n
}
