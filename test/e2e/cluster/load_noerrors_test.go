package cluster

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// Bounds of the 64-caller run. The call count, not a timer, ends the run, so no call is cut
// off in flight and every error counted is one the cluster gave (a tool's own
// end-of-run cancellations were once counted as the cluster's errors).
const (
	loadCallers    = 64
	callsPerCaller = 100
	loadCallBudget = 10 * time.Second // one call, all its retries included
	loadRunLimit   = 2 * time.Minute  // the whole run, a guard against a hang
)

// TestSixtyFourCallersSeeNoErrors drives 64 concurrent callers, a fixed number of identity
// calls each, against three real nodes, twice: through the Go client (which sends identities
// to the leader) and as a stock gRPC load tool does (ghz: each caller on a connection to one
// of the three nodes in turn, no retries, so followers relay to the leader). Not one call may
// fail, no identity may be handed out twice, and no election may start: Raft timeouts short
// enough for a quick failover must not mistake a loaded leader for a dead one. That is a claim
// about the callers' load, so a stallMeter watches the machine: when it held this process
// past a leader's lease, elections and the calls they refused are the machine's, logged, and
// only duplicates fail the test.
func TestSixtyFourCallersSeeNoErrors(t *testing.T) {
	c := e2etest.StartCluster(t)
	c.Leader() // the first election is over: errors from here on are the load's
	before := terms(t, c)
	stalls := startStallMeter()
	defer func() {
		after := terms(t, c)
		n := maxTerm(after) - maxTerm(before)
		switch stalled := stalls.Stop(); {
		case n == 0:
		case machineStalled(stalled):
			t.Logf("Raft terms %v before the load, %v after: %d election(s), while the machine held this process for %v, past a leader's lease (%v)", before, after, n, stalled, cluster.DefaultTiming.LeaderLeaseTimeout)
		default:
			t.Errorf("Raft terms %v before the load, %v after: %d election(s) on a healthy cluster under %d callers (this process was never held over %v); cluster.DefaultTiming's heartbeat timeout is too short for this machine", before, after, n, loadCallers, stalled)
		}
	}()

	t.Run("go-client", func(t *testing.T) {
		cl, err := client.Dial(context.Background(), c.GRPCAddrs())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cl.Close(context.Background()) }()
		runIdentityCallers(t, func(ctx context.Context, _ int) (docid.IdentityBlock, error) {
			return cl.NextIdentity(ctx, "loadclient", 1)
		}, "loadclient", stalls)
	})

	t.Run("round-robin", func(t *testing.T) {
		runIdentityCallers(t, func(ctx context.Context, caller int) (docid.IdentityBlock, error) {
			ids := c.Ids[e2etest.ClusterTags[caller%len(e2etest.ClusterTags)]]
			// No request_id, no retry: a load tool sends the same message every time.
			resp, err := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "loadraw"})
			if err != nil {
				return docid.IdentityBlock{}, err
			}
			return docid.IdentityBlock{First: resp.GetFirst(), Last: resp.GetLast(), Skipped: resp.GetSkipped()}, nil
		}, "loadraw", stalls)
	})
}

// machineStalled says whether a process held for stalled could have cost a leader its lease.
func machineStalled(stalled time.Duration) bool {
	return stalled >= cluster.DefaultTiming.LeaderLeaseTimeout
}

// terms is each node's own Raft term, by tag. A node's term rises once for every election it
// starts or takes part in, won or not, so two readings count the elections between them.
func terms(t *testing.T, c *e2etest.Cluster) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for _, tag := range e2etest.ClusterTags {
		st, err := c.Admin[tag].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
		if err != nil {
			t.Fatalf("Status via %s: %v", tag, err)
		}
		out[tag] = st.GetTerm()
	}
	return out
}

// maxTerm is the highest of terms' readings: the cluster's term.
func maxTerm(terms map[string]uint64) uint64 {
	var m uint64
	for _, v := range terms {
		m = max(m, v)
	}
	return m
}

// runIdentityCallers runs loadCallers goroutines, each making callsPerCaller calls of call
// (one identity of prefix each, within loadCallBudget), records every answer, and fails the
// test on any error, a duplicate or a history that is not linearizable; after the machine
// stalled (stalls), on a duplicate only, since a refused call's outcome is unknown and the
// history's search may then not end in time.
func runIdentityCallers(t *testing.T, call func(ctx context.Context, caller int) (docid.IdentityBlock, error), prefix string, stalls *stallMeter) {
	rec := history.New()
	errs := e2etest.NewErrorTally()
	var wg sync.WaitGroup
	begin := time.Now()
	for w := range loadCallers {
		wg.Go(func() {
			for range callsPerCaller {
				e2etest.RecordedIdentity(rec, errs, prefix, loadCallBudget, func(ctx context.Context) (docid.IdentityBlock, error) { return call(ctx, w) })
			}
		})
	}
	if !e2etest.WaitGroupWithin(&wg, loadRunLimit) {
		t.Fatalf("%d callers × %d calls not done within %v", loadCallers, callsPerCaller, loadRunLimit)
	}
	took, stalled := time.Since(begin), stalls.Longest()
	t.Logf("%d calls in %v (%.0f/s): %v; this process was held %v at most", loadCallers*callsPerCaller, took.Round(time.Millisecond),
		float64(loadCallers*callsPerCaller)/took.Seconds(), errs, stalled)
	if errs.Count() > 0 && machineStalled(stalled) {
		t.Logf("callers saw %v while the machine held this process for %v, past a leader's lease: checking for duplicates only", errs, stalled)
		if n, examples := rec.Duplicates(); n > 0 {
			t.Errorf("history: %d duplicates: %v", n, examples)
		}
		return
	}
	if errs.Count() > 0 {
		t.Errorf("callers saw %v", errs)
	}
	e2etest.CheckHistory(t, rec)
}
