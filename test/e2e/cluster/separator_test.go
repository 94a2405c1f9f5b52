package cluster

import (
	"context"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// The separator is the cluster's, not a node's. A node restarted with
// another --separator used to answer users-5 from the counter A answers as users/6; now it
// refuses to start, and so does a new node joining with another separator. The cluster goes on
// as it was.
func TestClusterRefusesANodeWithAnotherSeparator(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	leader := c.Leader()
	f := c.Node(c.Others(leader)[0])
	_, last := c.MustIdentity(rec, "users", 3, f.Tag)
	c.MustServerSide(rec, "users", f.Tag) // answered once f is registered, its separator remembered

	f.Stop()
	args := f.Args
	f.Args = append(append([]string(nil), args...), "--separator", "-")
	out := e2etest.RefusedStart(t, f)
	if !strings.Contains(out, `--separator "/"`) {
		t.Errorf("the refusal does not say which separator to use:\n%s", out)
	}
	t.Logf("restart with --separator -: %s", e2etest.LastLine(out, "idnode: "))

	joinOut, code := runIdnode(t, "--join", c.Node(leader).GRPCAddr, "--separator", "-", "--data-dir", t.TempDir(),
		"--grpc-addr", e2etest.FreeAddr(t), "--raft-addr", e2etest.FreeAddr(t))
	if code <= 0 || !strings.Contains(joinOut, "separator") {
		t.Errorf("a new node joining with --separator -: exit %d, output %q; want a refusal naming the separator", code, joinOut)
	}
	if n := len(membership(t, c, leader)); n != 3 {
		t.Errorf("the refused join left %d members, want 3", n)
	}

	f.Args = args
	f.Restart()
	c.WaitServing(f.Tag)
	// Asked again with its request id after a refusal for want of a leader, as a client would.
	req := &idnodev1.GenerateRequest{Id: "users|", RequestId: c.RequestID()}
	resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) { return c.Ids[f.Tag].Generate(ctx, req) })
	if err != nil || len(resp.GetIds()) != 1 {
		t.Fatalf("users| via %s after the refusals: %v, %v", f.Tag, resp, err)
	}
	first, _, err := e2etest.ParseIdentities(resp.GetIds(), "users", 1)
	if err != nil || first != last+1 {
		t.Errorf("users| continued with %v (%v), want users/%d", resp.GetIds(), err, last+1)
	}
	e2etest.CheckHistory(t, rec)
}
