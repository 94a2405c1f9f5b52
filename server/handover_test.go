package server_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// handOverCallers is how many raw gRPC callers load the cluster across a planned hand-over,
// spread over every node; handOverCalls is how many calls the test waits for before the
// hand-over and again after the new leader is known.
const (
	handOverCallers = 16
	handOverCalls   = 200
)

// A hand-over the cluster chose (TransferLeadership, or the move to the preferred region) is
// invisible to callers: the old leader proposes nothing new while it hands over, lets what it
// proposed commit first, and takes the calls it holds to the new leader once it is known;
// followers take a call the old leader refused unproposed to the new one. No caller, on any
// node, gets NO_QUORUM or OUTCOME_UNKNOWN for it (docs/cluster.md, "Handing leadership over").
func TestAPlannedHandOverRefusesNoCall(t *testing.T) {
	c := newTestCluster(t, 3)
	old := c.waitLeader(startupTimeout, c.Tags()...)

	var (
		calls    atomic.Int64
		mu       sync.Mutex
		refused  = map[string]int{}
		nRefused int
		seen     = map[int64]bool{}
		repeated []int64
		wg       sync.WaitGroup
	)
	load, stop := context.WithCancel(t.Context())
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
						repeated = append(repeated, resp.GetFirst())
					}
					seen[resp.GetFirst()] = true
				case load.Err() == nil:
					refused[fmt.Sprintf("%v (%s) %s", status.Code(err), reason.Of(err), status.Convert(err).Message())]++
					nRefused++
				}
				mu.Unlock()
				calls.Add(1)
			}
		})
	}
	defer func() { stop(); wg.Wait() }()
	waitCalls := func(what string, n int64) {
		waitFor(t, what, convergeTimeout, func() (bool, string) {
			return calls.Load() >= n, fmt.Sprintf("%d calls", calls.Load())
		})
	}
	waitCalls("load before the hand-over", handOverCalls)

	ctx, cancel := context.WithTimeout(t.Context(), convergeTimeout)
	defer cancel()
	resp, err := idnodev1.NewClusterServiceClient(c.Dial(t, old)).TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{})
	if err != nil {
		t.Fatalf("TransferLeadership on %s: %v", old, err)
	}
	if resp.GetLeader() == old {
		t.Fatalf("TransferLeadership left %s leading", old)
	}
	c.waitLeader(convergeTimeout, c.Tags()...)
	waitCalls("load after the hand-over", calls.Load()+handOverCalls)
	stop()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(repeated) > 0 {
		t.Fatalf("identities handed out twice: %v", repeated)
	}
	if nRefused > 0 {
		t.Fatalf("%d of %d calls refused across a planned hand-over from %s to %s; want none: %v",
			nRefused, calls.Load(), old, resp.GetLeader(), refused)
	}
	t.Logf("%d calls across the hand-over from %s to %s, none refused", calls.Load(), old, resp.GetLeader())
}
