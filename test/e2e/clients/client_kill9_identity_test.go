package clients

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// Bounds of the Go client's identity failover.
const (
	failoverCallers    = 16
	failoverCallBudget = 10 * time.Second // one NextIdentity, all its retries included
	failoverAcksBefore = 2000             // identities answered before the kill
	failoverAcksAfter  = 2000             // identities answered after the kill before the run ends
)

// TestClientIdentitiesSurviveLeaderKill9: 16 callers take identities through one
// Go client dialed to all three nodes while the leader is killed with SIGKILL. A majority
// stays up, so every call must succeed within its budget: the client retries on the survivors
// with the call's request_id, so a call the dead leader committed but did not answer gets the
// values it was given then. No identity may be handed out twice, and the history must be
// linearizable: every call is answered, so values burnt by a retry that was not recognised
// would be a gap no order of the calls explains.
func TestClientIdentitiesSurviveLeaderKill9(t *testing.T) {
	c := e2etest.StartCluster(t)
	cl, err := client.Dial(context.Background(), c.GRPCAddrs())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Close(context.Background()) }()

	rec := history.New()
	errs := e2etest.NewErrorTally()
	var (
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		longest atomic.Int64 // nanoseconds of the slowest call that succeeded
	)
	for range failoverCallers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				took, ok := e2etest.RecordedIdentity(rec, errs, "failover", failoverCallBudget, func(ctx context.Context) (docid.IdentityBlock, error) {
					return cl.NextIdentity(ctx, "failover", 1)
				})
				if ok {
					raiseTo(&longest, int64(took))
				}
			}
		})
	}
	stopped := false
	finish := func() {
		if !stopped {
			stopped = true
			close(stop)
			if !e2etest.WaitGroupWithin(&wg, failoverCallBudget+5*time.Second) {
				t.Errorf("callers did not stop within %v", failoverCallBudget+5*time.Second)
			}
		}
	}
	defer finish()
	waitAcked := func(n int, what string) {
		t.Helper()
		e2etest.Eventually(t, e2etest.LoadTimeout, what, func() error {
			if got := rec.Acknowledged(); got < n {
				return fmt.Errorf("%d identities so far (%v)", got, errs)
			}
			return nil
		})
	}

	waitAcked(failoverAcksBefore, fmt.Sprintf("%d identities before the kill", failoverAcksBefore))
	leader := c.Leader()
	atKill := rec.Acknowledged()
	longest.Store(0) // from here on: the calls that overlapped the failover
	killedAt := time.Now()
	c.Node(leader).Kill9()
	newLeader := c.Leader(c.Others(leader)...)
	waitAcked(atKill+failoverAcksAfter, fmt.Sprintf("%d identities after the kill", failoverAcksAfter))
	finish()

	t.Logf("kill -9 of leader %s after %d identities; new leader %s; %d identities %v after the kill; longest call %v; %v",
		leader, atKill, newLeader, rec.Acknowledged()-atKill, time.Since(killedAt).Round(time.Millisecond),
		time.Duration(longest.Load()).Round(time.Millisecond), errs)
	if errs.Count() > 0 {
		t.Errorf("callers saw %v", errs)
	}
	e2etest.CheckHistory(t, rec)
}

// raiseTo sets m to v if v is larger, atomically.
func raiseTo(m *atomic.Int64, v int64) {
	for old := m.Load(); v > old && !m.CompareAndSwap(old, v); old = m.Load() {
	}
}
