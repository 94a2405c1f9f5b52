package server_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// handOverCallers is how many raw gRPC callers load the cluster across a planned hand-over,
// spread over every node; handOverCalls is how many calls the test waits for before the
// hand-over and again after the new leader is known. handOverAttempts bounds the hand-overs
// tried for one that no election of the cluster's own disturbed.
//
// handOverCallerPause is the virtual time each caller waits after a call. A bubble's clock
// moves only while every goroutine in it waits, and a call costs no virtual time. Once, in the
// README's command, one caller whose calls the new leader answered back to back kept the clock
// still while the other fifteen waited on it (their follower's relay to the old leader, and the
// test's own poll): the goroutine dump at go test's limit showed them waiting 9 minutes.
// fence_test.go's callers pause for the same reason.
const (
	handOverCallers     = 16
	handOverCalls       = 200
	handOverAttempts    = 3
	handOverCallerPause = time.Millisecond
)

// A hand-over the cluster chose (TransferLeadership, or the move to the preferred region) is
// invisible to callers: the old leader proposes nothing new while it hands over, lets what it
// proposed commit first, and takes the calls it holds to the new leader once it is known;
// followers take a call the old leader refused unproposed to the new one. No caller, on any
// node, gets NO_QUORUM or OUTCOME_UNKNOWN for it (docs/cluster.md, "Handing leadership over").
//
// A machine loaded enough can make the LAN timing lose a leader by itself (docs/regions.md,
// "When the LAN timing fails"), and the refusals of that failover are not the hand-over's. So
// a hand-over is judged only when the term moved by exactly one across it (the target's
// election); one that saw more elections is tried again, up to handOverAttempts times.
func TestAPlannedHandOverRefusesNoCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		for attempt := 1; attempt <= handOverAttempts; attempt++ {
			old := c.waitLeader(convergeTimeout, c.Tags()...)
			term := c.Node(old).Node.Term()
			r := handOverUnderLoad(t, c, old)
			if r.transferErr != nil {
				t.Logf("attempt %d: TransferLeadership on %s: %v", attempt, old, r.transferErr)
				continue
			}
			if elections := c.Node(r.leader).Node.Term() - term; elections != 1 || r.leader == old {
				t.Logf("attempt %d: %d elections across the hand-over from %s (now %s), not only the planned one: %d refusals not judged",
					attempt, elections, old, r.leader, r.refused)
				continue
			}
			if len(r.repeated) > 0 {
				t.Fatalf("identities handed out twice: %v", r.repeated)
			}
			if r.refused > 0 {
				t.Fatalf("%d of %d calls refused across a planned hand-over from %s to %s; want none: %v",
					r.refused, r.calls, old, r.leader, r.byKind)
			}
			t.Logf("%d calls across the hand-over from %s to %s, none refused", r.calls, old, r.leader)
			return
		}
		t.Fatalf("no hand-over of %d went without an election of the cluster's own: the machine is too loaded to judge one", handOverAttempts)
	})
}

// handOverRun is what the callers saw across one hand-over.
type handOverRun struct {
	leader      string // the leader after it
	transferErr error  // TransferLeadership's refusal, if it refused
	calls       int64
	refused     int
	byKind      map[string]int // refusals by code, reason and message
	repeated    []int64        // identities handed out twice
}

// handOverUnderLoad has handOverCallers raw callers take identities through every node, asks
// old to hand leadership over once they made handOverCalls calls, and stops them handOverCalls
// calls after every node agrees on the new leader.
func handOverUnderLoad(t *testing.T, c *testCluster, old string) handOverRun {
	t.Helper()
	var (
		calls atomic.Int64
		mu    sync.Mutex
		run   = handOverRun{byKind: map[string]int{}}
		seen  = map[int64]bool{}
		wg    sync.WaitGroup
	)
	load, stop := context.WithCancel(t.Context())
	defer func() { stop(); wg.Wait() }()
	for i := range handOverCallers {
		ids := idnodev1.NewIdServiceClient(c.Dial(t, c.Tags()[i%len(c.Tags())]))
		wg.Go(func() {
			for load.Err() == nil {
				ctx, cancel := context.WithTimeout(load, callTimeout)
				resp, err := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "handover"})
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					if seen[resp.GetFirst()] {
						run.repeated = append(run.repeated, resp.GetFirst())
					}
					seen[resp.GetFirst()] = true
				case load.Err() == nil:
					run.byKind[fmt.Sprintf("%v (%s) %s", status.Code(err), reason.Of(err), status.Convert(err).Message())]++
					run.refused++
				}
				mu.Unlock()
				calls.Add(1)
				time.Sleep(handOverCallerPause)
			}
		})
	}
	waitCalls := func(what string, n int64) {
		waitFor(t, what, convergeTimeout, func() (bool, string) {
			return calls.Load() >= n, fmt.Sprintf("%d calls", calls.Load())
		})
	}
	waitCalls("load before the hand-over", calls.Load()+handOverCalls)
	ctx, cancel := context.WithTimeout(t.Context(), convergeTimeout)
	defer cancel()
	_, run.transferErr = idnodev1.NewClusterServiceClient(c.Dial(t, old)).TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{})
	run.leader = c.waitLeader(convergeTimeout, c.Tags()...)
	waitCalls("load after the hand-over", calls.Load()+handOverCalls)
	stop()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	run.calls = calls.Load()
	return run
}
