package durability

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/idnode/idnode/internal/publication"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// An older copy of the etag file costs a gap, never a repeat, after a clean
// stop and after kill -9: the cluster's record of the node's watermark is above the copy. The
// copy is taken twice: before the node handed out any server-side ID (a watermark of 0, as a
// VM image made right after the node's first start holds) and after.
func TestOlderEtagFileIsAGap(t *testing.T) {
	t.Parallel()
	for _, mode := range stopModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			p, c := e2etest.StartSingle(t)
			olderEtagFileIsAGap(t, p, c, mode.stop, func() { p.WaitServing(e2etest.ServeTimeout) })
		})
	}
}

// The same on a follower of a 3-node cluster: its record is read through
// the leader, and the start check waits until the leader answers it.
func TestOlderEtagFileIsAGapInACluster(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	follower := c.Others(c.Leader())[0]
	for _, mode := range stopModes {
		t.Logf("node %s stopped by %s", follower, mode.name)
		olderEtagFileIsAGap(t, c.Node(follower), c.Ids[follower], mode.stop, func() { c.WaitServing(follower) })
	}
}

// olderEtagFileIsAGap copies node p's etag file, has p hand out server-side IDs, stops it
// with stop, puts the copy back and fails when p, restarted, hands out an etag it had handed
// out before. The first round copies the file before p handed out any server-side ID, the
// second after. serving waits until p, just restarted, serves.
func olderEtagFileIsAGap(t *testing.T, p *e2etest.Proc, ids idnodev1.IdServiceClient, stop func(*e2etest.Proc), serving func()) {
	t.Helper()
	seen := map[uint64]bool{}
	var high uint64
	next := func() uint64 {
		t.Helper()
		// The first ID after a start waits for the start check, which needs the leader, and
		// gives up after StartWait.
		ctx, cancel := context.WithTimeout(context.Background(), publication.StartWait+e2etest.RPCTimeout)
		defer cancel()
		resp, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "users/"})
		if err != nil || len(resp.GetIds()) != 1 {
			t.Fatalf("Generate(users/) on node %s = %v, %v; want one ID", p.Tag, resp.GetIds(), err)
		}
		return serverSideEtag(t, resp.GetIds()[0])
	}
	for _, copied := range []string{"before its first server-side ID", "after server-side IDs"} {
		p.Stop()
		older := filepath.Join(t.TempDir(), "etag")
		copyFile(t, filepath.Join(p.DataDir, "etag"), older)
		p.Restart()
		serving()
		for range 2 {
			e := next()
			seen[e], high = true, max(high, e)
		}
		stop(p)
		copyFile(t, older, filepath.Join(p.DataDir, "etag"))
		p.Restart()
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
	stop func(p *e2etest.Proc)
}{
	{"SIGTERM", func(p *e2etest.Proc) { p.Stop() }},
	{"kill -9", func(p *e2etest.Proc) { p.Kill9() }},
}
