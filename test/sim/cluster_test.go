package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/series"
)

// simNode is one member: its durable stores outlive a crash, its raft and FSM do not.
type simNode struct {
	id    raft.ServerID
	addr  raft.ServerAddress
	logs  *raft.InmemStore // the log and the stable store (term, vote)
	snaps *raft.InmemSnapshotStore
	// dir holds the node's series journal, series.db, a bbolt file as on a real node; journal
	// is it open, nil while the node is down.
	dir     string
	journal *series.Store
	// disk is how slow the node's stores write (a slow-disk fault).
	disk *slowDisk
	// trans is this incarnation's transport; a restart makes a new one, as a restarted
	// process opens a new listener.
	trans   *raft.InmemTransport
	raft    *raft.Raft // nil while crashed
	replica *replica
}

// simCluster is three simNodes over raft's in-memory transport. cut counts the faults that
// cut each link (a pair, lower index first); delays holds the extra latency of each direction
// of a slow link. Only the goroutine that drives the schedule changes them.
type simCluster struct {
	// mu guards each node's raft and replica, which a crash and a restart change while
	// clients read them.
	mu     sync.Mutex
	nodes  []*simNode
	cut    map[[2]int]int
	delays *linkDelays
	// bug is the deliberate bug n3's replica has, if any (replica_test.go).
	bug bug
	// store is how the nodes' log stores treat gaps.
	store logStoreKind
}

// raftConfig is cluster's tuning (cluster.DefaultTiming and what cluster's raftConfig sets),
// with snapshots taken often and few trailing entries kept, so that a node that was away
// catches up by an installed snapshot as well as by the log. The commit timeout is five times
// cluster's: it only bounds how soon followers learn what is committed, and each of its
// wake-ups costs CPU: with cluster's 10 ms a seed under -race took nearly twice as much.
func raftConfig(id raft.ServerID) *raft.Config {
	t := cluster.DefaultTiming
	rc := raft.DefaultConfig()
	rc.LocalID = id
	rc.HeartbeatTimeout = t.HeartbeatTimeout
	rc.ElectionTimeout = t.ElectionTimeout
	rc.LeaderLeaseTimeout = t.LeaderLeaseTimeout
	rc.CommitTimeout = 5 * t.CommitTimeout
	rc.SnapshotInterval = 10 * time.Second
	rc.SnapshotThreshold = 64
	rc.TrailingLogs = 32
	rc.BatchApplyCh = true
	rc.MaxAppendEntries = 256
	rc.Logger = hclog.NewNullLogger()
	return rc
}

// newSimCluster bootstraps three nodes, each with its series journal in a directory of its own
// under dir, and starts them. Call it inside a synctest bubble.
func newSimCluster(dir string, b bug, store logStoreKind) (*simCluster, error) {
	c := &simCluster{cut: map[[2]int]int{}, delays: newLinkDelays(3), bug: b, store: store}
	var conf raft.Configuration
	for i := range 3 {
		n := &simNode{
			id:    raft.ServerID(nodeName(i)),
			addr:  raft.ServerAddress(nodeAddr(i)),
			logs:  raft.NewInmemStore(),
			snaps: raft.NewInmemSnapshotStore(),
			dir:   filepath.Join(dir, nodeName(i)),
			disk:  newSlowDisk(),
		}
		if err := os.MkdirAll(n.dir, 0o700); err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
		conf.Servers = append(conf.Servers, raft.Server{Suffrage: raft.Voter, ID: n.id, Address: n.addr})
	}
	for _, n := range c.nodes {
		_, n.trans = raft.NewInmemTransport(n.addr)
		if err := raft.BootstrapCluster(raftConfig(n.id), n.logs, n.logs, n.snaps, n.trans, conf); err != nil {
			return nil, fmt.Errorf("bootstrap %s: %w", n.id, err)
		}
	}
	c.wire()
	for i := range c.nodes {
		if err := c.start(i); err != nil {
			c.stop()
			return nil, err
		}
	}
	return c, nil
}

// start runs raft on node i's stores with a new, empty FSM, which raft fills from the newest
// snapshot and the log, and which opens the node's series journal as cluster.Open does.
func (c *simCluster) start(i int) error {
	n := c.nodes[i]
	journal, err := series.Open(filepath.Join(n.dir, "series.db"))
	if err != nil {
		return fmt.Errorf("start %s: %w", n.id, err)
	}
	rep := &replica{FSM: fsm.New()}
	rep.UseSeries(journal)
	if i == forgetfulNode && c.bug != noBug {
		rep.command = c.bug.forgets
		rep.forgets = func() bool { return true }
		if c.bug.leading {
			rep.forgets = func() bool { r := c.raftOf(i); return r != nil && r.State() == raft.Leader }
		}
	}
	c.mu.Lock()
	n.replica, n.journal = rep, journal
	c.mu.Unlock()
	n.disk.restart()
	r, err := raft.NewRaft(raftConfig(n.id), rep, slowLogStore{n.logs, n.disk, c.store}, slowLogStore{n.logs, n.disk, c.store},
		slowSnapshots{n.snaps, n.disk}, &slowTransport{InmemTransport: n.trans, from: i, delays: c.delays})
	if err != nil {
		return errors.Join(fmt.Errorf("start %s: %w", n.id, err), journal.Close())
	}
	c.mu.Lock()
	n.raft = r
	c.mu.Unlock()
	return nil
}

// crash stops node i's raft as a killed process stops: the stores keep what raft wrote, and
// series.db what the FSM committed to it. The FSM's last journal writes are committed before
// the file closes, as cluster.Node.Close does: bbolt cannot drop an open write transaction
// and open its file again in one process. Entries after a commit are applied again from the
// log after a restart either way (fsm/series.go).
func (c *simCluster) crash(i int) error {
	n := c.nodes[i]
	c.mu.Lock()
	r, journal := n.raft, n.journal
	n.raft, n.journal = nil, nil
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	// Raft's shutdown answers no proposal still queued for its leader loop, so the loop must
	// be waiting for more, not asleep in a write to a slow disk, when the node goes down.
	n.disk.crash()
	synctest.Wait()
	err := r.Shutdown().Error()
	return errors.Join(err, c.replicaOf(i).FlushSeries(), journal.Close())
}

// restart brings a crashed node back on a new transport.
func (c *simCluster) restart(i int) error {
	n := c.nodes[i]
	if c.raftOf(i) != nil {
		return nil
	}
	_, n.trans = raft.NewInmemTransport(n.addr)
	c.wire()
	return c.start(i)
}

// wire connects every pair of transports that no partition cuts. A crashed node's old
// transport stays connected: what is sent to it waits for the transport's timeout, as a
// connection to a dead process does.
func (c *simCluster) wire() {
	for i, a := range c.nodes {
		for j, b := range c.nodes {
			switch {
			case i == j:
			case c.cut[pair(i, j)] > 0:
				a.trans.Disconnect(b.addr)
			default:
				a.trans.Connect(b.addr, b.trans)
			}
		}
	}
}

// partition cuts every link between a node of side and one outside it, and returns them for
// restore. Cuts add up: a link is up again once every fault that cut it is over.
func (c *simCluster) partition(side ...int) [][2]int {
	in := map[int]bool{}
	for _, i := range side {
		in[i] = true
	}
	var links [][2]int
	for i := range c.nodes {
		for j := i + 1; j < len(c.nodes); j++ {
			if in[i] != in[j] {
				links = append(links, pair(i, j))
			}
		}
	}
	c.cutLinks(links...)
	return links
}

// cutLinks cuts each link once more; restore undoes it.
func (c *simCluster) cutLinks(links ...[2]int) {
	for _, l := range links {
		c.cut[l]++
	}
	c.wire()
}

func (c *simCluster) restore(links ...[2]int) {
	for _, l := range links {
		if c.cut[l]--; c.cut[l] <= 0 {
			delete(c.cut, l)
		}
	}
	c.wire()
}

// heal brings every link up and every disk back to speed.
func (c *simCluster) heal() {
	clear(c.cut)
	c.wire()
	for _, n := range c.nodes {
		n.disk.set(0)
	}
}

// nodeName is node i's raft ID, nodeAddr its transport address.
func nodeName(i int) string { return fmt.Sprintf("n%d", i+1) }
func nodeAddr(i int) string { return "inmem-" + nodeName(i) }

func pair(i, j int) [2]int { return [2]int{min(i, j), max(i, j)} }

// raftOf is node i's raft, nil while it is down; replicaOf its FSM (the last one it ran).
func (c *simCluster) raftOf(i int) *raft.Raft {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i].raft
}

func (c *simCluster) replicaOf(i int) *replica {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i].replica
}

// leader is the index of a node that believes it leads, or -1.
func (c *simCluster) leader() int {
	for i := range c.nodes {
		if r := c.raftOf(i); r != nil && r.State() == raft.Leader {
			return i
		}
	}
	return -1
}

// stop shuts every running node down.
func (c *simCluster) stop() error {
	var errs []error
	for i := range c.nodes {
		errs = append(errs, c.crash(i))
	}
	return errors.Join(errs...)
}

// errUnanswered wraps every way a proposal can end without the FSM's answer (no leader, the
// leader lost, the deadline passed): its outcome is unknown and a client may retry it. An
// error without it is the FSM's own answer.
var errUnanswered = errors.New("no answer")

// applier proposes through node i as cluster.Node.Apply does: only on the leader, waiting
// for the FSM's answer or the caller's deadline.
type applier struct {
	c *simCluster
	i int
}

func (a applier) Apply(ctx context.Context, cmd []byte) (any, error) {
	r := a.c.raftOf(a.i)
	if r == nil || r.State() != raft.Leader {
		return nil, fmt.Errorf("%w: %s does not lead", errUnanswered, nodeName(a.i))
	}
	enqueue := 5 * time.Second
	if d, ok := ctx.Deadline(); ok {
		enqueue = max(time.Until(d), time.Millisecond)
	}
	f := r.Apply(cmd, enqueue)
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errUnanswered, err)
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", errUnanswered, ctx.Err())
	}
	if err, ok := f.Response().(error); ok {
		return nil, err
	}
	return f.Response(), nil
}
