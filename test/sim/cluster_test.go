package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/fsm"
)

// simNode is one member: its durable stores outlive a crash, its raft and FSM do not.
type simNode struct {
	id    raft.ServerID
	addr  raft.ServerAddress
	logs  *raft.InmemStore // the log and the stable store (term, vote)
	snaps *raft.InmemSnapshotStore
	// trans is this incarnation's transport; a restart makes a new one, as a restarted
	// process opens a new listener.
	trans   *raft.InmemTransport
	raft    *raft.Raft // nil while crashed
	replica *replica
}

// simCluster is three simNodes over raft's in-memory transport. links says which pairs can
// talk; delays holds the extra latency of each direction of a slow link. Only the goroutine
// that drives the schedule changes them.
type simCluster struct {
	nodes  []*simNode
	cut    map[[2]int]bool
	delays *linkDelays
	// forget, when set, names the replica whose FSM skips HiLo grants (a deliberate bug that
	// the checks must catch); -1 is none.
	forget int
}

// raftConfig is cluster's tuning (cluster.DefaultTiming and what cluster's raftConfig sets),
// with snapshots taken often and few trailing entries kept, so that a node that was away
// catches up by an installed snapshot as well as by the log.
func raftConfig(id raft.ServerID) *raft.Config {
	t := cluster.DefaultTiming
	rc := raft.DefaultConfig()
	rc.LocalID = id
	rc.HeartbeatTimeout = t.HeartbeatTimeout
	rc.ElectionTimeout = t.ElectionTimeout
	rc.LeaderLeaseTimeout = t.LeaderLeaseTimeout
	rc.CommitTimeout = t.CommitTimeout
	rc.SnapshotInterval = 5 * time.Second
	rc.SnapshotThreshold = 64
	rc.TrailingLogs = 32
	rc.BatchApplyCh = true
	rc.MaxAppendEntries = 256
	rc.Logger = hclog.NewNullLogger()
	return rc
}

// newSimCluster bootstraps three nodes and starts them. Call it inside a synctest bubble.
func newSimCluster(forget int) (*simCluster, error) {
	c := &simCluster{cut: map[[2]int]bool{}, delays: newLinkDelays(3), forget: forget}
	var conf raft.Configuration
	for i := range 3 {
		n := &simNode{
			id:    raft.ServerID(nodeName(i)),
			addr:  raft.ServerAddress(nodeAddr(i)),
			logs:  raft.NewInmemStore(),
			snaps: raft.NewInmemSnapshotStore(),
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
// snapshot and the log.
func (c *simCluster) start(i int) error {
	n := c.nodes[i]
	n.replica = &replica{FSM: fsm.New(), forgetHiLo: i == c.forget}
	r, err := raft.NewRaft(raftConfig(n.id), n.replica, n.logs, n.logs, n.snaps, &slowTransport{InmemTransport: n.trans, from: i, delays: c.delays})
	if err != nil {
		return fmt.Errorf("start %s: %w", n.id, err)
	}
	n.raft = r
	return nil
}

// crash stops node i's raft as a killed process stops: the stores keep what raft wrote.
func (c *simCluster) crash(i int) error {
	n := c.nodes[i]
	if n.raft == nil {
		return nil
	}
	err := n.raft.Shutdown().Error()
	n.raft = nil
	return err
}

// restart brings a crashed node back on a new transport.
func (c *simCluster) restart(i int) error {
	n := c.nodes[i]
	if n.raft != nil {
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
			case c.cut[pair(i, j)]:
				a.trans.Disconnect(b.addr)
			default:
				a.trans.Connect(b.addr, b.trans)
			}
		}
	}
}

// partition cuts every link between a node of side and one outside it; heal restores them.
func (c *simCluster) partition(side ...int) {
	in := map[int]bool{}
	for _, i := range side {
		in[i] = true
	}
	for i := range c.nodes {
		for j := range c.nodes {
			if in[i] != in[j] {
				c.cut[pair(i, j)] = true
			}
		}
	}
	c.wire()
}

func (c *simCluster) heal() {
	clear(c.cut)
	c.wire()
}

// nodeName is node i's raft ID, nodeAddr its transport address.
func nodeName(i int) string { return fmt.Sprintf("n%d", i+1) }
func nodeAddr(i int) string { return "inmem-" + nodeName(i) }

func pair(i, j int) [2]int { return [2]int{min(i, j), max(i, j)} }

// leader is the index of a node that believes it leads, or -1.
func (c *simCluster) leader() int {
	for i, n := range c.nodes {
		if n.raft != nil && n.raft.State() == raft.Leader {
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

// errNotLeader answers a proposal to a node that does not lead or is down.
var errNotLeader = errors.New("not the leader")

// applier proposes through node i as cluster.Node.Apply does: only on the leader, waiting
// for the FSM's answer or the caller's deadline.
type applier struct {
	c *simCluster
	i int
}

func (a applier) Apply(ctx context.Context, cmd []byte) (any, error) {
	r := a.c.nodes[a.i].raft
	if r == nil || r.State() != raft.Leader {
		return nil, errNotLeader
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
			return nil, err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err, ok := f.Response().(error); ok {
		return nil, err
	}
	return f.Response(), nil
}
