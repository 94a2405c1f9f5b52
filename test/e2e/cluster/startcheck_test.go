package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/metadb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/datadir"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// The start-up replica check (docs/replica-checks.md, "At start"). A follower is stopped, and
// its data dir altered while it is down: the digest mark it holds in its Raft log is replaced
// by an identity increment no other member applied, as a disk that returned other bytes would.
// Restarted, the follower replays that entry, so its state differs from the cluster's; it
// must be caught before its first answer: every call that depends on its state is refused,
// and once it has compared, refused REPLICA_DIVERGED, while the other nodes serve on.
func TestNodeRestartedOnAnAlteredDataDirIsCaughtBeforeItsFirstAnswer(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	leader := c.Leader()
	altered := c.Node(c.Others(leader)[0])
	mark := checkReplicasVia(t, c, leader)
	altered.Stop()
	replaceLogEntry(t, altered.DataDir, mark.GetIndex(), flippedCounter(t))

	altered.Restart()
	ids, _ := e2etest.Dial(t, altered.GRPCAddr)
	order := &idnodev1.GenerateRequest{Id: "orders/1"}
	e2etest.Eventually(t, e2etest.ServeTimeout, "node "+altered.Tag+" refusing REPLICA_DIVERGED", func() error {
		_, err := ids.Generate(e2etest.RPCCtx(t), order)
		switch {
		case err == nil:
			t.Fatalf("node %s, restarted on an altered data dir, answered Generate", altered.Tag)
		case reason.Of(err) == reason.ReplicaDiverged && status.Code(err) == codes.Unavailable:
			return nil
		}
		return err
	})
	// The leader's check may fence the node (a refusal with the same reason) a moment before
	// the node's own start check logs its verdict: wait for the line.
	e2etest.Eventually(t, 30*time.Second, "node "+altered.Tag+"'s log to name the divergence at start", func() error {
		if logs := altered.Logs.String(); !strings.Contains(logs, "differs from the cluster's at start") {
			return fmt.Errorf("its log:\n%s", logs)
		}
		return nil
	})
	if st := e2etest.HealthOf(c.Health[altered.Tag], ""); st != "NOT_SERVING" {
		t.Errorf("health of the diverged node %s: %s, want NOT_SERVING", altered.Tag, st)
	}
	// The leader's comparison, which the node had it make, names the node as its cadence's would.
	// Raft sees the altered node's log as up to date, so on a busy machine it may win an
	// election after its restart; fenced, it hands the leadership over, and the leader after it
	// has made no comparison of its own: that one is asked to compare now.
	var rc *idnodev1.ReplicaCheck
	e2etest.Eventually(t, e2etest.LeaderTimeout, "a leader other than the diverged node "+altered.Tag, func() error {
		now := c.Leader()
		if now == altered.Tag {
			return fmt.Errorf("the diverged node %s leads", now)
		}
		if now != leader {
			t.Logf("the leadership moved from %s to %s since the restart; %s compares now", leader, now, now)
			var err error
			rc, err = c.Admin[now].CheckReplicas(e2etest.RPCCtx(t), &idnodev1.CheckReplicasRequest{})
			return err
		}
		st, err := c.Admin[now].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
		rc = st.GetReplicaCheck()
		return err
	})
	if rc.GetMismatches() != 1 || verdictOf(rc, altered.Tag) != "differs" {
		t.Errorf("the leader's last replica check: %v; want node %s differing", rc, altered.Tag)
	}
	for _, tag := range c.Others(altered.Tag) {
		if _, err := c.Ids[tag].Generate(e2etest.RPCCtx(t), order); err != nil {
			t.Errorf("Generate on node %s beside the diverged one: %v", tag, err)
		}
	}
}

// A follower restarted on its own data dir compares its state with the cluster's, agrees, and
// serves.
func TestNodeRestartedOnItsOwnDataDirPassesTheStartCheck(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	leader := c.Leader()
	restarted := c.Node(c.Others(leader)[0])
	checkReplicasVia(t, c, leader)
	restarted.Stop()
	restarted.Restart()
	c.WaitServing(restarted.Tag)
	if _, err := c.Ids[restarted.Tag].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders/1"}); err != nil {
		t.Fatalf("Generate on node %s after its restart: %v", restarted.Tag, err)
	}
	if logs := restarted.Logs.String(); !strings.Contains(logs, "this node's state is the cluster's") {
		t.Errorf("node %s served after its restart without the start-up check agreeing:\n%s", restarted.Tag, logs)
	}
}

// checkReplicasVia has the leader mark and compare now, through node tag, and requires every
// member to agree.
func checkReplicasVia(t *testing.T, c *e2etest.Cluster, tag string) *idnodev1.ReplicaCheck {
	t.Helper()
	rc, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ReplicaCheck, error) {
		return c.Admin[tag].CheckReplicas(ctx, &idnodev1.CheckReplicasRequest{})
	})
	if err != nil {
		t.Fatalf("CheckReplicas via %s: %v", tag, err)
	}
	if rc.GetMismatches() != 0 || len(rc.GetMajorityDigest()) != fsm.DigestLen {
		t.Fatalf("CheckReplicas via %s before anything was altered: %v", tag, rc)
	}
	return rc
}

func verdictOf(rc *idnodev1.ReplicaCheck, tag string) string {
	for _, m := range rc.GetMembers() {
		if m.GetTag() == tag {
			return m.GetVerdict()
		}
	}
	return ""
}

// flippedCounter is an identity increment of a counter no other member has.
func flippedCounter(t *testing.T) []byte {
	t.Helper()
	data, err := fsm.Encode(fsm.IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: "flipped", Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// replaceLogEntry rewrites the stopped node's Raft log (its WAL) so that the digest mark at
// index carries data instead, term and index kept, and every entry after it as it was. The
// node must hold no snapshot at or past index, or it would not replay the entry.
func replaceLogEntry(t *testing.T, dataDir string, index uint64, data []byte) {
	t.Helper()
	if newest := newestSnapshotIndex(t, dataDir); newest >= index {
		t.Fatalf("the node took a snapshot at index %d, past the mark at %d: it would not replay the entry", newest, index)
	}
	w, err := wal.Open(filepath.Join(dataDir, string(datadir.RaftWAL)), wal.WithMetaStore(&metadb.BoltMetaDB{}))
	if err != nil {
		t.Fatalf("open the stopped node's WAL: %v", err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Errorf("close the WAL: %v", err)
		}
	}()
	last, err := w.LastIndex()
	if err != nil {
		t.Fatal(err)
	}
	var tail []*raft.Log
	for i := index; i <= last; i++ {
		var l raft.Log
		if err := w.GetLog(i, &l); err != nil {
			t.Fatalf("read entry %d of %d: %v", i, last, err)
		}
		tail = append(tail, &l)
	}
	if len(tail[0].Data) == 0 || fsm.CommandType(tail[0].Data[0]) != fsm.DigestMarkCommand {
		t.Fatalf("entry %d is not the digest mark (type byte %v)", index, tail[0].Data[:min(1, len(tail[0].Data))])
	}
	tail[0].Data = data
	if err := w.DeleteRange(index, last); err != nil {
		t.Fatalf("truncate the WAL from %d: %v", index, err)
	}
	if err := w.StoreLogs(tail); err != nil {
		t.Fatalf("write entries %d-%d back: %v", index, last, err)
	}
}

// newestSnapshotIndex is the index of the newest snapshot in dataDir, 0 with none.
func newestSnapshotIndex(t *testing.T, dataDir string) uint64 {
	t.Helper()
	dir := filepath.Join(dataDir, string(datadir.Snapshots))
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var newest uint64
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "meta.json"))
		if err != nil {
			continue // a snapshot raft did not finish; it restores none
		}
		var meta raft.SnapshotMeta
		if err := json.Unmarshal(raw, &meta); err != nil {
			t.Fatalf("snapshot %s: %v", e.Name(), err)
		}
		newest = max(newest, meta.Index)
	}
	return newest
}
