package durability

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// An older Raft log put back after kill -9 is refused, like one put back after a clean
// stop: the data dir's high-water mark moves while the node runs, not only at a
// snapshot or a clean stop. On main the node started and answered users/4 again.
func TestOlderRaftLogAfterKill9IsRefused(t *testing.T) {
	t.Parallel()
	p, c := e2etest.StartSingle(t)
	for range 3 {
		e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users|"})
	}
	p.Stop()
	older := filepath.Join(t.TempDir(), "wal")
	copyDir(t, filepath.Join(p.DataDir, raftLog), older)
	p.Restart()
	p.WaitServing(e2etest.ServeTimeout)
	for range 3 {
		e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users|"}) // users/4-6
	}
	waitHighWater(t, p, commitIndex(t, p.GRPCAddr))
	p.Kill9()
	putBack(t, older, filepath.Join(p.DataDir, raftLog))
	out := e2etest.RefusedStart(t, p)
	if !strings.Contains(out, "had reached index") || !strings.Contains(out, raftLog) {
		t.Fatalf("the refusal does not name the log and the index it had reached:\n%s", out)
	}
}

// An older Raft log put back on a cluster: follower F1's Raft log copied while it was stopped; F2
// frozen; users/4-8 taken; F1 killed and its old log put back; the leader killed; F2
// thawed; F1 restarted. On main F1 and F2 formed a quorum on F1's old log and answered
// users/4, 5, 6 again. Now F1 refuses to start; with the leader back the cluster continues
// above users/8.
func TestClusterOlderRaftLogIsRefused(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	leader := c.Leader()
	f1, f2 := c.Node(c.Others(leader)[0]), c.Node(c.Others(leader)[1])
	c.MustIdentity(rec, "users", 3, leader)
	f1.Stop()
	older := filepath.Join(t.TempDir(), "wal")
	copyDir(t, filepath.Join(f1.DataDir, raftLog), older)
	f1.Restart()
	c.WaitServing(f1.Tag)
	f2.Sigstop()
	thawed := false
	defer func() {
		if !thawed {
			f2.Sigcont()
		}
	}()
	for range 5 {
		c.MustIdentity(rec, "users", 1, leader) // users/4-8, committed by the leader and F1
	}
	waitHighWater(t, f1, commitIndex(t, c.Node(leader).GRPCAddr))
	f1.Kill9()
	putBack(t, older, filepath.Join(f1.DataDir, raftLog))
	c.Node(leader).Kill9()
	f2.Sigcont()
	thawed = true
	out := e2etest.RefusedStart(t, f1)
	if !strings.Contains(out, "had reached index") {
		t.Fatalf("node %s started on an older Raft log, or was refused for another reason:\n%s", f1.Tag, out)
	}
	c.Node(leader).Restart()
	c.WaitServing(leader, f2.Tag)
	c.MustIdentity(rec, "users", 1, f2.Tag)
	e2etest.CheckHistory(t, rec)
}

// commitIndex is the commit index node addr reports.
func commitIndex(t *testing.T, addr string) uint64 {
	t.Helper()
	_, admin := e2etest.Dial(t, addr)
	// A read, asked again after a refusal for want of a leader, as a client would.
	st, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
		return admin.Status(ctx, &idnodev1.StatusRequest{Consistent: true})
	})
	if err != nil {
		t.Fatalf("Status via %s: %v", addr, err)
	}
	return st.GetCommitIndex()
}

// waitHighWater waits until p's data dir manifest records that its log reached index.
func waitHighWater(t *testing.T, p *e2etest.Proc, index uint64) {
	t.Helper()
	e2etest.Eventually(t, e2etest.ServeTimeout, fmt.Sprintf("node %s's manifest records index %d", p.Tag, index), func() error {
		data, err := os.ReadFile(filepath.Join(p.DataDir, "manifest.json"))
		if err != nil {
			return err
		}
		var m struct {
			LogIndex uint64 `json:"log_index"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.LogIndex < index {
			return fmt.Errorf("manifest log_index %d", m.LogIndex)
		}
		return nil
	})
}
