package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/reason"
)

// startCheckWait bounds a test's wait for a call that the check's decision releases.
const startCheckWait = 10 * time.Second

// A call waits for the start-up check: refused NOT_CAUGHT_UP when its wait ends undecided,
// let through once the check agrees, and refused REPLICA_DIVERGED once it found the node's
// state differing, for every call after.
func TestStartCheckAdmitsOnlyOnceItAgreed(t *testing.T) {
	t.Parallel()
	pending := newStartCheck(true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := pending.admit(ctx); status.Code(err) != codes.Unavailable || reason.Of(err) != reason.NotCaughtUp {
		t.Fatalf("a call whose wait ended before the check decided: %v; want UNAVAILABLE (%s)", err, reason.NotCaughtUp)
	}

	waiting := make(chan error, 1)
	go func() { waiting <- pending.admit(context.Background()) }()
	pending.decide(startAgreed)
	select {
	case err := <-waiting:
		if err != nil {
			t.Fatalf("a call waiting when the check agreed: %v", err)
		}
	case <-time.After(startCheckWait):
		t.Fatalf("a call waiting for the check was not released within %v of its agreeing", startCheckWait)
	}

	diverged := newStartCheck(true)
	diverged.decide(startDiverged)
	diverged.decide(startAgreed) // only the first decision counts
	for range 2 {
		if err := diverged.admit(context.Background()); status.Code(err) != codes.Unavailable || reason.Of(err) != reason.ReplicaDiverged {
			t.Fatalf("a call after the check found the state diverged: %v; want UNAVAILABLE (%s)", err, reason.ReplicaDiverged)
		}
	}
	if diverged.agreed() {
		t.Fatal("a diverged node's check says it agreed")
	}
}

// A node its data dir does not show registered holds no state of its own: its check agrees
// from the start, and no call waits for it.
func TestStartCheckOfANewNodeAgreesAtOnce(t *testing.T) {
	t.Parallel()
	c := newStartCheck(false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.admit(ctx); err != nil || !c.agreed() {
		t.Fatalf("a new node's check: admit %v, agreed %v; want nil, true", err, c.agreed())
	}
}
