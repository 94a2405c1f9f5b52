package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// TestPeersJSONRecovery is docs/recovery.md's "quorum lost for ever": B and C are gone with their disks,
// A alone can never win an election. The operator puts raft/peers.json listing only A into
// A's data dir and restarts it: A leads a cluster of one with every value it had, the file is
// renamed so the next start does not apply it again, and B and C are removed for good.
func TestPeersJSONRecovery(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	_, last := c.MustIdentity(rec, "orders", 25, "B")
	carts := &idnodev1.NextHiLoRequest{Tag: "carts", RequestId: c.RequestID()}
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) { return c.Ids["A"].NextHiLo(ctx, carts) }); err != nil {
		t.Fatal(err)
	}
	a := c.Node("A")
	// A must hold every committed entry before the others go (docs/recovery.md: recover from the
	// survivor with the highest index).
	// The leader's commit index, asked again of whoever leads after an election.
	lst, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
		return c.Admin[c.Leader()].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	e2etest.Eventually(t, e2etest.LeaderTimeout, "A has applied everything the leader committed", func() error {
		st, err := c.Admin["A"].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
		if err != nil {
			return err
		}
		if st.GetAppliedIndex() < lst.GetCommitIndex() {
			return fmt.Errorf("A applied %d, the leader committed %d", st.GetAppliedIndex(), lst.GetCommitIndex())
		}
		return nil
	})
	// peers.json names members by their ID (docs/idctl.md: the ID column of idctl status).
	var aID string
	for _, n := range lst.GetNodes() {
		if n.GetTag() == "A" {
			aID = n.GetId()
		}
	}
	for _, tag := range []string{"B", "C", "A"} {
		c.Node(tag).Kill9()
	}

	peers := filepath.Join(a.DataDir, "raft", "peers.json")
	content := fmt.Sprintf(`[{"id": %q, "address": %q, "non_voter": false}]`, aID, a.RaftAddr)
	if err := os.WriteFile(peers, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	a.Restart()
	c.WaitServing("A")
	if !strings.Contains(a.Logs.String(), "RECOVERY") {
		t.Error("the node did not log the recovery")
	}
	if _, err := os.Stat(peers); !os.IsNotExist(err) {
		t.Errorf("peers.json still present after the recovery: %v", err)
	}
	if _, err := os.Stat(peers + ".applied"); err != nil {
		t.Errorf("peers.json.applied: %v", err)
	}
	resp, err := c.Ids["A"].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders|"})
	if err != nil || len(resp.GetIds()) != 1 || resp.GetIds()[0] != fmt.Sprintf("orders/%d", last+1) {
		t.Fatalf("first identity after the recovery: %v, %v; want orders/%d", resp, err, last+1)
	}
	hilo, err := c.Ids["A"].NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "carts"})
	// Above the first range, not necessarily right after it: A was killed, so it cannot prove
	// its pools file current and the rest of its pool is a gap.
	if err != nil || hilo.GetLow() < 33 {
		t.Fatalf("HiLo after the recovery: %v, %v; want a range above 32", hilo, err)
	}

	// The operator retires the lost nodes' tags; the cluster is A alone.
	env := []string{"IDNODE_ADDR=" + a.GRPCAddr}
	e2etest.MustIdctl(t, env, "node", "remove", "B")
	e2etest.MustIdctl(t, env, "node", "remove", "C")
	if st := e2etest.IdctlStatus(t, env, "--consistent"); len(st.Nodes) != 1 || st.Leader != "A" {
		t.Errorf("status after the recovery: %+v", st)
	}

	// The next start needs no file and changes nothing.
	a.Stop()
	a.Restart()
	c.WaitServing("A")
	if resp, err := c.Ids["A"].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders|"}); err != nil || resp.GetIds()[0] != fmt.Sprintf("orders/%d", last+2) {
		t.Errorf("identity after a further restart: %v, %v; want orders/%d", resp, err, last+2)
	}
}
