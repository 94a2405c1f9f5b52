package crashstates

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/ledger"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// Bounds of the workload: a count of calls, so that the number of fsync points (the states
// a full run explores) varies little from run to run.
const (
	workloadCalls   = 200
	workloadWorkers = 4
	workloadFor     = 30 * time.Second // the bound in time of those calls
	minWorkloadAcks = 150              // fewer answers than this, and the workload tested little
)

// snapshotFlags make the nodes snapshot every few dozen entries, so that a workload of a few
// seconds writes snapshots, and has fsync points in the middle of one.
var snapshotFlags = []string{"--raft-snapshot-threshold", "16", "--raft-snapshot-interval", "1s"}

// recorded is a cluster that ran the workload on recording mounts, stopped by SIGKILL: its
// operations, and the answers its client was given, stamped with the recording's Seq. Each
// node's data dir is a symbolic link, pointed at its mount during the workload and at each
// explored state's directory after.
type recorded struct {
	t     *testing.T
	c     *e2etest.Cluster
	cl    *client.Client
	led   *ledger.Ledger
	ops   []lossyfs.Op
	links map[string]string // tag → the data dir the node was started with
	root  string            // where the states go
	took  time.Duration     // the workload's run, start of the cluster included
}

// recordWorkload starts three nodes (bin; "" for this tree's) on recording lossy mounts, runs
// the workload and kills them.
func recordWorkload(t *testing.T, bin string) *recorded {
	t.Helper()
	lossyfs.Need(t)
	begin := time.Now()
	r := &recorded{t: t, led: newLedger(), links: map[string]string{}, root: t.TempDir()}
	rec := lossyfs.NewRecorder()
	for _, tag := range e2etest.ClusterTags {
		m := lossyfs.Mount(t)
		m.RecordTo(rec, tag)
		r.links[tag] = filepath.Join(r.root, "data-"+tag)
		if err := os.Symlink(m.Dir, r.links[tag]); err != nil {
			t.Fatal(err)
		}
	}
	r.c = e2etest.StartClusterWith(t, func(tag string) e2etest.NodeOpts {
		return e2etest.NodeOpts{DataDir: r.links[tag], Binary: bin, Extra: snapshotFlags}
	})
	var addrs []string
	for _, p := range r.c.Nodes {
		addrs = append(addrs, p.GRPCAddr)
	}
	cl, err := client.Dial(context.Background(), addrs, client.WithCallTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close(context.Background()) })
	r.cl = cl

	stop := time.Now().Add(workloadFor)
	var wg sync.WaitGroup
	for w := range workloadWorkers {
		wg.Go(func() {
			for i := w; i < workloadCalls && time.Now().Before(stop); i += workloadWorkers {
				call(r.led, cl, i, rec.Seq)
			}
		})
	}
	wg.Wait()
	for _, p := range r.c.Nodes {
		p.Kill9()
	}
	if r.ops, err = rec.Ops(); err != nil {
		t.Fatal(err)
	}
	if n := r.led.Acked(); n < minWorkloadAcks {
		t.Fatalf("the workload had %d answers to %d calls (%d failed); want at least %d", n, workloadCalls, r.led.Failures(), minWorkloadAcks)
	}
	r.took = time.Since(begin)
	return r
}

// prefix is node tag's operations up to seq, in order.
func (r *recorded) prefix(tag string, seq int64) []lossyfs.Op {
	var out []lossyfs.Op
	for _, op := range r.ops {
		if op.Seq > seq {
			break
		}
		if op.Mount == tag {
			out = append(out, op)
		}
	}
	return out
}

// fsyncPoints are the indexes in r.ops of every fsync, of any node.
func (r *recorded) fsyncPoints() []int {
	var out []int
	for i, op := range r.ops {
		if op.Kind == lossyfs.OpFsync {
			out = append(out, i)
		}
	}
	return out
}
