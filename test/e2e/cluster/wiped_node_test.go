package cluster

import (
	"context"
	"os"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// TestClusterWipedNodeCannotVote runs with real processes. A follower is
// frozen, the cluster moves on without it, the other follower's data dir is wiped and it is
// restarted with the same flags, the leader dies and the frozen follower wakes. Before the
// fix the wiped node bootstrapped a cluster of its own, voted the stale follower leader, and
// the pair answered invoices/4, 5, 6 a second time. Now the wiped node refuses to start, the
// stale follower alone has no quorum, and identities resume above every earlier value once
// the old leader is back.
func TestClusterWipedNodeCannotVote(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	leader := c.Leader()
	others := c.Others(leader)
	stale, wiped := c.Node(others[0]), c.Node(others[1])

	c.MustIdentity(rec, "invoices", 3, leader)
	stale.Sigstop()
	_, before := c.MustIdentity(rec, "invoices", 3, leader) // the frozen node never saw these

	wiped.Stop()
	if err := os.RemoveAll(wiped.DataDir); err != nil {
		t.Fatal(err)
	}
	wiped.Restart()
	c.Node(leader).Kill9()
	stale.Sigcont()

	st, err := wiped.WaitExit(e2etest.ServeTimeout)
	if err != nil {
		t.Fatalf("the wiped node %s did not refuse to start: %v", wiped.Tag, err)
	}
	out := wiped.Logs.String()
	if st.ExitCode() == 0 || !strings.Contains(out, "cluster already exists") || !strings.Contains(out, "--join") {
		t.Fatalf("wiped node %s exited with %v; want a non-zero exit saying the cluster exists and how to --join. Output:\n%s", wiped.Tag, st, out)
	}
	t.Logf("wiped node %s refused: %s", wiped.Tag, e2etest.LastLine(out, "cluster already exists"))

	// The stale follower is alone: it must refuse, not answer from its old state.
	op := rec.BeginIdentity("invoices", 1)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
	resp, err := c.Ids[stale.Tag].Generate(ctx, &idnodev1.GenerateRequest{Id: "invoices|", RequestId: c.RequestID()})
	cancel()
	if err == nil {
		first, last, perr := e2etest.ParseIdentities(resp.GetIds(), "invoices", 1)
		if perr == nil {
			op.Done(first, last)
		}
		t.Errorf("the stale follower %s, alone, answered %v", stale.Tag, resp.GetIds())
	} else {
		op.Unknown()
		if status.Code(err) != codes.Unavailable || reason.Of(err) != reason.NoQuorum {
			t.Errorf("the stale follower %s, alone: %v (reason %q), want UNAVAILABLE, %s", stale.Tag, err, reason.Of(err), reason.NoQuorum)
		}
	}

	c.Node(leader).Restart()
	c.WaitServing(leader, stale.Tag)
	first, _ := c.MustIdentity(rec, "invoices", 1, stale.Tag)
	if first <= before {
		t.Errorf("after recovery invoices continued at %d, want above %d", first, before)
	}
	e2etest.CheckHistory(t, rec)
}
