package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/tracing"
)

// Peer is one member of a statically bootstrapped cluster.
type Peer struct {
	// ID is the node's tag, as --peers gives it. Its Raft server ID carries its data dir's
	// incarnation too (docid.MemberID), and is learned from the node itself when the cluster forms.
	// With a custom Transport (tests), ID is the Raft server ID, used as is.
	ID      string
	Address string // raft host:port
}

// Config describes one node's Raft side.
type Config struct {
	ID       string // raft server ID: docid.MemberID(tag, incarnation), or the bare tag for data dirs older than that
	DataDir  string // holds raft/: the log (raft.db or wal/) and snapshots/
	RaftAddr string // host:port to listen on for Raft traffic
	// RaftListener, when set, is used instead of listening on RaftAddr: a joining node binds
	// its ports before it asks to be added. The node closes it.
	RaftListener net.Listener
	// RaftAdvertise is where other nodes reach this one (a host name is fine); RaftAddr when
	// empty.
	RaftAdvertise string
	// Peers lists every voter of a statically bootstrapped cluster, this node included. Empty
	// means a single-voter cluster of this node alone.
	Peers []Peer
	// NoBootstrap is set on a node joining a running cluster: it waits to be contacted by the
	// leader instead of forming a cluster of its own.
	NoBootstrap bool
	Timing      Timing
	// LogStore is the store that a data dir without Raft state is made with; empty means
	// DefaultLogStore. A data dir that holds a store keeps it, and naming the other one is
	// an error (ErrLogStoreMismatch).
	LogStore LogStore
	Logger   *slog.Logger
	// Transport replaces the TCP transport; tests use raft's in-memory one to cut links.
	Transport raft.Transport
	// Region is this node's region label, which it tells peers in its hello; empty: none.
	// PreferredRegion, when set, is where the leader should be: a leader elsewhere hands
	// leadership to a caught-up voter of that region (placement.go). Both need the TCP
	// transport.
	Region, PreferredRegion string
	// Dial, when set, opens the TCP transport's connections to peers instead of net.Dial
	// (TLS, when set, runs over what it returns): tests route them through a latency proxy.
	Dial func(ctx context.Context, address string) (net.Conn, error)
	// TLS, when set, makes the TCP transport speak mutual TLS: it must present this node's
	// certificate, require and verify the peer's (tlsconfig.Node.Peer).
	TLS *tls.Config
	// OnApply, when set, is told how long each Apply took, committed or not, and the Apply's
	// context, whose span an exemplar names (metrics).
	OnApply func(ctx context.Context, d time.Duration)
	// OnEntry, when set, is told when log entries first..last pass each EntryStage on this
	// node (the commit-round trace). Unset, nothing is timed.
	OnEntry func(stage EntryStage, first, last uint64, at time.Time)
	// Tracing, when set, records the leader's stages of an entry proposed under a sampled
	// span as that span's children (entryspans.go). Unset, nothing is stamped for it.
	Tracing *tracing.Tracing
	// MinLogIndex is the newest index this data dir is known to have held (datadir's
	// manifest); a Raft log and snapshots that end before it are refused at start.
	MinLogIndex uint64
	// OnSnapshot, when set, is told the index of every snapshot stored completely.
	OnSnapshot func(index uint64)
	// OnSlowApply, when set, is called each time the watchdog finds an apply running longer
	// than SlowApply (applywatch.go); the log names it.
	OnSlowApply func()
	// OnStorageHalt is called when raft's current term cannot be written (a *StorageError
	// naming the file). raft cannot go on without it and panics when this returns: the node
	// must stop.
	OnStorageHalt func(err error)
	// OnHalt is called once if the FSM halts (a command type this build does not know, a
	// series journal it cannot write): it has stopped applying the log, and the node must
	// stop (fsm.FSM.OnHalt).
	OnHalt func(fsm.Halt)
}

// Timing holds the Raft timeouts. The defaults are tuned for a LAN or loopback, where a round
// trip is well under a millisecond (docs/decisions/0006-failover-timing.md). A follower checks
// at random intervals of HeartbeatTimeout…2× whether it heard from the leader within
// HeartbeatTimeout, so each survivor of a dead leader notices between one and three timeouts
// after its last contact; the first one's pre-vote is refused while the other still has a
// leader, so a failover lasts about until the second one notices: 0.35–0.65 s at 250 ms,
// where 500 ms took 0.85–1.45 s. Heartbeats are answered off raft's main loop (the TCP
// transport's fast path), so a slow fsync does not starve them: 64 callers start no election
// even at 100 ms (bench/failover.sh); 30 ms does.
type Timing struct {
	HeartbeatTimeout   time.Duration
	ElectionTimeout    time.Duration
	LeaderLeaseTimeout time.Duration // a leader that cannot reach a majority this long steps down
	CommitTimeout      time.Duration
	SnapshotInterval   time.Duration
	SnapshotThreshold  uint64
}

// DefaultTiming is the LAN tuning described on Timing.
var DefaultTiming = Timing{
	HeartbeatTimeout:   250 * time.Millisecond,
	ElectionTimeout:    250 * time.Millisecond,
	LeaderLeaseTimeout: 200 * time.Millisecond,
	CommitTimeout:      10 * time.Millisecond,
	SnapshotInterval:   30 * time.Second,
	SnapshotThreshold:  8192,
}

func (c *Config) raftConfig() (*raft.Config, error) {
	t := c.Timing
	if t == (Timing{}) {
		t = DefaultTiming
	}
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(c.ID)
	rc.HeartbeatTimeout = t.HeartbeatTimeout
	rc.ElectionTimeout = t.ElectionTimeout
	rc.LeaderLeaseTimeout = t.LeaderLeaseTimeout
	rc.CommitTimeout = t.CommitTimeout
	rc.SnapshotInterval = t.SnapshotInterval
	rc.SnapshotThreshold = t.SnapshotThreshold
	// Hand many queued Apply calls to the FSM (and the disk) at once.
	rc.BatchApplyCh = true
	rc.MaxAppendEntries = 256
	if err := raft.ValidateConfig(rc); err != nil {
		return nil, fmt.Errorf("raft timing: %w", err)
	}
	return rc, nil
}

func (c *Config) advertise() string {
	if c.RaftAdvertise != "" {
		return c.RaftAdvertise
	}
	return c.RaftAddr
}
