package poll

import (
	"errors"
	"testing"
	"time"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	Until(t, "the third call", time.Second, time.Millisecond, func() error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
}

func TestWaitReturnsTheLastErrorOnceTimeRunsOut(t *testing.T) {
	const timeout = 20 * time.Millisecond
	start := time.Now()
	err := Wait(timeout, time.Millisecond, func() error { return errors.New("never") })
	if took := time.Since(start); err == nil || err.Error() != "never" || took < timeout {
		t.Fatalf("Wait = %v after %v; want cond's error once %v passed", err, took, timeout)
	}
	if err := Wait(time.Second, time.Millisecond, func() error { return nil }); err != nil {
		t.Fatalf("Wait on a condition that holds = %v, want nil", err)
	}
}
