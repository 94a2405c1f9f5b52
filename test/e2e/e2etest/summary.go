package e2etest

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// SummaryEnv names a file the schedules of the chaos and power-cut suites append their one
// line each to; .ci/run prints it at the end, since go test shows a passing package's output
// only with -v.
const SummaryEnv = "IDNODE_CHAOS_SUMMARY"

// Summarize prints a schedule's line, logs it to t and appends it to $IDNODE_CHAOS_SUMMARY
// when that is set.
func Summarize(t testing.TB, line string) {
	t.Helper()
	fmt.Println(line)
	t.Log(line)
	path := os.Getenv(SummaryEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = fmt.Fprintln(f, line)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		t.Errorf("$%s: %v", SummaryEnv, err)
	}
}
