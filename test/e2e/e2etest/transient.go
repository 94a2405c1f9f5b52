package e2etest

import (
	"strings"
	"testing"
)

// transientAttempts bounds the tries of a Docker command that failed for a reason of the
// machine's, not the test's.
const transientAttempts = 3

// AgainWhileTransient runs a Docker command (run returns its output) until it succeeds. When
// it fails with output that contains transient, a failure a busy machine makes and a second
// try mends, it logs why, calls mend (nil for none) and tries again, at most
// transientAttempts times in all; any other failure, or the last, fails the test.
func AgainWhileTransient(t testing.TB, what, transient string, run func() (string, error), mend func()) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		out, err := run()
		if err == nil {
			return
		}
		if attempt == transientAttempts || !strings.Contains(out, transient) {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		t.Logf("%s, attempt %d: %s; trying again", what, attempt, strings.TrimSpace(out))
		if mend != nil {
			mend()
		}
	}
}
