package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/idnode/idnode/internal/publication"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// An older copy of the etag file costs a gap, never a repeat (issue 24, item 2), after a clean
// stop and after kill -9: the cluster's record of the node's watermark is above the copy. The
// copy is taken twice: before the node handed out any server-side ID (a watermark of 0, as a
// VM image made right after the node's first start holds) and after.
func TestOlderEtagFileIsAGap(t *testing.T) {
	t.Parallel()
	for _, mode := range stopModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			p, c := startSingle(t)
			olderEtagFileIsAGap(t, p, c, mode.stop, func() { p.waitServing(serveTimeout) })
		})
	}
}

// The same on a follower of a 3-node cluster (issue 43, item 9): its record is read through
// the leader, and the start check waits until the leader answers it.
func TestOlderEtagFileIsAGapInACluster(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	follower := c.others(c.leader())[0]
	for _, mode := range stopModes {
		t.Logf("node %s stopped by %s", follower, mode.name)
		olderEtagFileIsAGap(t, c.node(follower), c.ids[follower], mode.stop, func() { c.waitServing(follower) })
	}
}

// olderEtagFileIsAGap copies node p's etag file, has p hand out server-side IDs, stops it
// with stop, puts the copy back and fails when p, restarted, hands out an etag it had handed
// out before. The first round copies the file before p handed out any server-side ID, the
// second after. serving waits until p, just restarted, serves.
func olderEtagFileIsAGap(t *testing.T, p *proc, ids idnodev1.IdServiceClient, stop func(*proc), serving func()) {
	t.Helper()
	seen := map[uint64]bool{}
	var high uint64
	next := func() uint64 {
		t.Helper()
		// The first ID after a start waits for the start check, which needs the leader, and
		// gives up after StartWait.
		ctx, cancel := context.WithTimeout(context.Background(), publication.StartWait+rpcTimeout)
		defer cancel()
		resp, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "users/"})
		if err != nil || len(resp.GetIds()) != 1 {
			t.Fatalf("Generate(users/) on node %s = %v, %v; want one ID", p.Tag, resp.GetIds(), err)
		}
		return serverSideEtag(t, resp.GetIds()[0])
	}
	for _, copied := range []string{"before its first server-side ID", "after server-side IDs"} {
		p.stop()
		older := filepath.Join(t.TempDir(), "etag")
		copyFile(t, filepath.Join(p.DataDir, "etag"), older)
		p.restart()
		serving()
		for range 2 {
			e := next()
			seen[e], high = true, max(high, e)
		}
		stop(p)
		copyFile(t, older, filepath.Join(p.DataDir, "etag"))
		p.restart()
		serving()
		for range 3 {
			e := next()
			if seen[e] || e <= high {
				t.Fatalf("node %s, etag file copied %s and put back: it handed out etag %d again; it had reached %d", p.Tag, copied, e, high)
			}
			seen[e], high = true, e
		}
	}
}

// stopModes are the two ways a node stops before a test puts an older file back.
var stopModes = []struct {
	name string
	stop func(p *proc)
}{
	{"SIGTERM", func(p *proc) { p.stop() }},
	{"kill -9", func(p *proc) { p.kill9() }},
}
