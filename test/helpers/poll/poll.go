// Package poll waits in tests for a condition that other goroutines or processes bring about,
// checking it every interval and failing the test with its last answer when time runs out.
//
// Only tests import it, so it lives in test/helpers with the other test helpers, not in
// internal/, which holds the daemon's own parts.
package poll

import (
	"testing"
	"time"
)

// Until calls cond every interval until it returns nil; after timeout it fails t with what and
// cond's last error.
func Until(t testing.TB, what string, timeout, interval time.Duration, cond func() error) {
	t.Helper()
	if err := Wait(timeout, interval, cond); err != nil {
		t.Fatalf("%s: not within %v: %v", what, timeout, err)
	}
}

// Wait calls cond every interval until it returns nil, and returns nil then; after timeout it
// returns cond's last error. It fails no test, so goroutines a test starts can wait with it
// (only the test's own goroutine may end the test).
func Wait(timeout, interval time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		<-tick.C
	}
}
