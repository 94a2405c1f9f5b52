package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// readings returns a load reader that gives vs in turn, then the last one again and again,
// and counts its reads.
func readings(vs ...float64) (read func() (float64, bool), reads *int) {
	n := 0
	return func() (float64, bool) {
		v := vs[min(n, len(vs)-1)]
		n++
		return v, true
	}, &n
}

func TestAwaitLoadWaitsForTheAverageToRise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		read, reads := readings(2.3, 17, 30.5)
		var progress bytes.Buffer
		began := time.Now()
		if err := awaitLoad(context.Background(), 30, read, &progress); err != nil {
			t.Fatal(err)
		}
		if *reads != 3 || time.Since(began) != 2*loadPoll {
			t.Errorf("returned after %d reads and %v; want 3 reads, %v", *reads, time.Since(began), 2*loadPoll)
		}
		if got, want := progress.String(), "waiting for the load average to reach 30 (now 2.3)\n"; got != want {
			t.Errorf("progress %q; want %q, said once", got, want)
		}
	})
}

func TestAwaitLoadDoesNotWaitWhenTheLoadIsThere(t *testing.T) {
	read, reads := readings(31)
	var progress bytes.Buffer
	if err := awaitLoad(context.Background(), 30, read, &progress); err != nil || *reads != 1 || progress.Len() != 0 {
		t.Errorf("err %v after %d reads, progress %q; want nil after one read, nothing said", err, *reads, progress.String())
	}
}

func TestAwaitLoadGivesUpOnALoadThatStaysLow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		read, _ := readings(12)
		began := time.Now()
		err := awaitLoad(context.Background(), 30, read, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "raise -busy") || !strings.Contains(err.Error(), "last 12.0") {
			t.Fatalf("err %v; want one that says the last average and what to raise", err)
		}
		if waited := time.Since(began); waited < loadPatience || waited > loadPatience+loadPoll {
			t.Errorf("gave up after %v; want %v", waited, loadPatience)
		}
	})
}

func TestAwaitLoadFailsWhereTheLoadCannotBeRead(t *testing.T) {
	err := awaitLoad(context.Background(), 30, func() (float64, bool) { return 0, false }, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), loadavgPath) {
		t.Errorf("err %v; want one naming %s", err, loadavgPath)
	}
}

func TestAwaitLoadEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		read, _ := readings(1)
		done := make(chan error)
		go func() { done <- awaitLoad(ctx, 30, read, &bytes.Buffer{}) }()
		synctest.Wait()
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("err %v; want context.Canceled", err)
		}
	})
}
