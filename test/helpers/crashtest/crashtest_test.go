package crashtest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

const helperEnv = "CRASHTEST_HELPER"

// TestHelperProcess is not a test: it is the child of TestRunAndKillKillsMidStream, printing
// 0, 1, 2 … until it is killed.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("helper process for TestRunAndKillKillsMidStream")
	}
	for i := 0; ; i++ {
		if _, err := fmt.Fprintf(os.Stdout, "%d\n", i); err != nil {
			os.Exit(3)
		}
	}
}

// The child is killed after the lines asked for, every line it printed reaches line in order,
// and the count returned is the lines read.
func TestRunAndKillKillsMidStream(t *testing.T) {
	ctx := Context(t, time.Minute)
	seen := 0
	n := RunAndKill(ctx, t, "TestHelperProcess", []string{helperEnv + "=1"}, 100, func(s string) error {
		if s != strconv.Itoa(seen) {
			return fmt.Errorf("line %q, want %d", s, seen)
		}
		seen++
		return nil
	})
	if n < 100 || n != seen {
		t.Fatalf("RunAndKill read %d lines, line saw %d; want the same, at least 100", n, seen)
	}
}
