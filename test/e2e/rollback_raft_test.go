package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/history"
)

// An older raft.db put back after kill -9 is refused, like one put back after a clean stop
// (issue 24, item 1): the data dir's high-water mark moves while the node runs, not only at a
// snapshot or a clean stop. On main the node started and answered users/4 again.
func TestOlderRaftLogAfterKill9IsRefused(t *testing.T) {
	t.Parallel()
	p, c := startSingle(t)
	for range 3 {
		generate(t, c, &idnodev1.GenerateRequest{Id: "users|"})
	}
	p.stop()
	older := filepath.Join(t.TempDir(), "raft.db")
	copyFile(t, filepath.Join(p.DataDir, "raft", "raft.db"), older)
	p.restart()
	p.waitServing(serveTimeout)
	for range 3 {
		generate(t, c, &idnodev1.GenerateRequest{Id: "users|"}) // users/4-6
	}
	waitHighWater(t, p, commitIndex(t, p.GRPCAddr))
	p.kill9()
	copyFile(t, older, filepath.Join(p.DataDir, "raft", "raft.db"))
	out := refusedStart(t, p)
	if !strings.Contains(out, "had reached index") || !strings.Contains(out, "raft.db") {
		t.Fatalf("the refusal does not name the log and the index it had reached:\n%s", out)
	}
}

// The cluster repro of issue 24, item 1: follower F1's raft.db copied while it was stopped; F2
// frozen; users/4-8 taken; F1 killed and its old raft.db put back; the leader killed; F2
// thawed; F1 restarted. On main F1 and F2 formed a quorum on F1's old log and answered
// users/4, 5, 6 again. Now F1 refuses to start; with the leader back the cluster continues
// above users/8.
func TestClusterOlderRaftLogIsRefused(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	rec := history.New()
	leader := c.leader()
	f1, f2 := c.node(c.others(leader)[0]), c.node(c.others(leader)[1])
	c.mustIdentity(rec, "users", 3, leader)
	f1.stop()
	older := filepath.Join(t.TempDir(), "raft.db")
	copyFile(t, filepath.Join(f1.DataDir, "raft", "raft.db"), older)
	f1.restart()
	c.waitServing(f1.Tag)
	f2.sigstop()
	thawed := false
	defer func() {
		if !thawed {
			f2.sigcont()
		}
	}()
	for range 5 {
		c.mustIdentity(rec, "users", 1, leader) // users/4-8, committed by the leader and F1
	}
	waitHighWater(t, f1, commitIndex(t, c.node(leader).GRPCAddr))
	f1.kill9()
	copyFile(t, older, filepath.Join(f1.DataDir, "raft", "raft.db"))
	c.node(leader).kill9()
	f2.sigcont()
	thawed = true
	out := refusedStart(t, f1)
	if !strings.Contains(out, "had reached index") {
		t.Fatalf("node %s started on an older raft.db, or was refused for another reason:\n%s", f1.Tag, out)
	}
	c.node(leader).restart()
	c.waitServing(leader, f2.Tag)
	c.mustIdentity(rec, "users", 1, f2.Tag)
	checkHistory(t, rec)
}

// commitIndex is the commit index node addr reports.
func commitIndex(t *testing.T, addr string) uint64 {
	t.Helper()
	_, admin := dial(t, addr)
	st, err := admin.Status(rpcCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil {
		t.Fatalf("Status via %s: %v", addr, err)
	}
	return st.GetCommitIndex()
}

// waitHighWater waits until p's data dir manifest records that its log reached index.
func waitHighWater(t *testing.T, p *proc, index uint64) {
	t.Helper()
	eventually(t, serveTimeout, fmt.Sprintf("node %s's manifest records index %d", p.Tag, index), func() error {
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
