// Package cluster wires idnode's FSM to hashicorp/raft: durable stores (raft-boltdb or
// raft-wal, with fsync), snapshots, bootstrap, and proposing commands with the caller's deadline.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/durablefile"
	"github.com/idnode/idnode/series"
)

// Node is this process's Raft member.
type Node struct {
	cfg     Config
	raft    *raft.Raft
	fsm     *fsm.FSM
	watched *watchedFSM // fsm as raft applies it (applywatch.go)
	// spans keeps entries' stamps for their spans (entryspans.go); nil while tracing is off.
	spans     *entrySpans
	store     logStore
	storeKind LogStore
	journal   *series.Store // the series journals the FSM applies to
	guard     *storageGuard // the store as raft writes it
	transport raft.Transport
	log       *slog.Logger
	raftLog   *raftSink // raft's lines into log
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
	// caughtUpTerm is the term in which a barrier last proved the FSM holds every entry
	// committed before; see ReadBarrier.
	caughtUpTerm atomic.Uint64

	// What the node tells peers that ask who it is (hello.go). dial is nil with a custom
	// Transport, which cannot carry hellos.
	dial       func(raft.ServerAddress, time.Duration) (net.Conn, error)
	internal   net.Listener                       // node-to-node gRPC on the Raft port; nil with a custom Transport
	formed     atomic.Bool                        // the data dir holds Raft state
	formedWith atomic.Pointer[raft.Configuration] // bootstrapped here, before raft runs
	live       atomic.Pointer[raft.Raft]          // set once raft runs

	leaders leaderLog // the leadership changes seen (leaderlog.go)
	// leading is since when this node leads, as placementDue last looked; only the placement
	// loop uses it (placement.go).
	leading leadership
	// handOver keeps proposals out of a planned hand-over of leadership (handover.go).
	handOver handOver
}

// Open starts Raft on cfg.DataDir. On a data dir with no Raft state it bootstraps the cluster
// from cfg.Peers (or this node alone), once it knows the cluster is new (formation.go), which
// may wait for the peers until ctx ends; with existing state it just rejoins.
func Open(ctx context.Context, cfg Config) (*Node, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	rc, err := cfg.raftConfig()
	if err != nil {
		return nil, err
	}
	raftLog := newRaftSink(cfg.Logger)
	rc.Logger = raftLog.hclog()
	raftDir := filepath.Join(cfg.DataDir, "raft")
	if err := durablefile.MkdirAll(raftDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir %s is not usable: %w", cfg.DataDir, err)
	}
	kind, err := chooseLogStore(raftDir, cfg.LogStore)
	if err != nil {
		return nil, err
	}
	store, err := openLogStore(kind, raftDir, cfg.DataDir, rc.Logger.Named("wal"))
	if err != nil {
		return nil, err
	}
	// The series journals (fsm/series.go) live beside the log. Nothing else holds them: a lost
	// or older series.db is rebuilt from the newest snapshot and the log after it.
	journal, err := series.Open(filepath.Join(raftDir, "series.db"))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open the series journal in %s: %w", raftDir, err), store.Close())
	}
	n := &Node{cfg: cfg, fsm: fsm.New(), store: store, storeKind: kind, journal: journal, log: cfg.Logger, raftLog: raftLog, closed: make(chan struct{}),
		leaders: leaderLog{now: time.Now}}
	n.fsm.UseSeries(journal)
	if cfg.Tracing != nil {
		n.spans = &entrySpans{tracing: cfg.Tracing}
	}
	stamps := entryTrace(cfg.OnEntry).withSpans(n.spans)
	n.watched = &watchedFSM{BatchingFSM: n.fsm, trace: stamps}
	n.guard = &storageGuard{StableStore: store, trace: stamps, path: kind.path(raftDir), log: cfg.Logger,
		normal: Timing{HeartbeatTimeout: rc.HeartbeatTimeout, ElectionTimeout: rc.ElectionTimeout}, halt: cfg.OnStorageHalt}
	if cfg.OnHalt != nil {
		n.fsm.OnHalt(cfg.OnHalt)
	}
	if err := n.start(ctx, rc, raftDir); err != nil {
		if c, ok := n.transport.(raft.WithClose); ok && n.cfg.Transport == nil {
			err = errors.Join(err, c.Close())
		}
		raftLog.close()
		return nil, errors.Join(err, store.Close(), journal.Close())
	}
	return n, nil
}

func (n *Node) start(ctx context.Context, rc *raft.Config, raftDir string) error {
	files, err := raft.NewFileSnapshotStoreWithLogger(raftDir, 3, rc.Logger.Named("snapshots"))
	if err != nil {
		return fmt.Errorf("open snapshot store in %s: %w", raftDir, err)
	}
	// The log store, series.db and the snapshot store may each have just created their file or
	// directory here: until raftDir is synced a power cut can take them away whole, log and all.
	if err := durablefile.SyncDir(raftDir); err != nil {
		return fmt.Errorf("sync %s: %w", raftDir, err)
	}
	var snaps raft.SnapshotStore = openedSnapshots{SnapshotStore: files, watched: n.watched}
	if n.cfg.OnSnapshot != nil {
		snaps = recordingSnapshots{SnapshotStore: snaps, onSnapshot: n.cfg.OnSnapshot}
	}
	if err := checkLogReaches(n.store, snaps, n.cfg.MinLogIndex, n.storeKind.path(raftDir)); err != nil {
		return err
	}
	n.transport = n.cfg.Transport
	if n.transport == nil {
		nt, stream, err := newTCPTransport(n.cfg.RaftListener, n.cfg.RaftAddr, n.cfg.advertise(), rc, n.cfg.TLS, n.hello, n.log)
		if err != nil {
			return err
		}
		stream.dial = n.cfg.Dial
		n.transport, n.dial, n.internal = &memberGuard{nt}, stream.Dial, stream.mux.internal
	}
	// The guard goes outside the cache: the cache reports a failed write with %q, which
	// keeps only its text.
	cache, err := raft.NewLogCache(512, n.store)
	if err != nil {
		return err
	}
	n.guard.LogStore = cache
	logs := n.guard
	existing, err := raft.HasExistingState(logs, n.guard, snaps)
	if err != nil {
		return fmt.Errorf("read raft state: %w", err)
	}
	if existing && !n.cfg.NoBootstrap {
		interrupted, err := bootstrapInterrupted(logs, n.guard, snaps)
		if err != nil {
			return fmt.Errorf("read raft state: %w", err)
		}
		if interrupted {
			n.log.Warn("the Raft state holds only the first term of a bootstrap that a crash interrupted: bootstrapping again", "raft_log", n.storeKind.path(raftDir))
			existing = false
		}
	}
	n.formed.Store(existing)
	if err := n.recoverFromPeersJSON(rc, logs, snaps, raftDir); err != nil {
		return err
	}
	if !existing && !n.cfg.NoBootstrap {
		conf, err := n.bootstrapConfiguration(ctx)
		if err != nil {
			return err
		}
		if err := raft.BootstrapCluster(rc, logs, n.guard, snaps, n.transport, conf); err != nil {
			return fmt.Errorf("bootstrap cluster: %w", err)
		}
		n.formedWith.Store(&conf)
		n.formed.Store(true)
		n.log.Info("bootstrapped a new cluster", "voters", len(conf.Servers), "id", n.cfg.ID)
	}
	n.raft, err = raft.NewRaft(rc, n.watched, logs, n.guard, snaps, n.transport)
	if err != nil {
		return fmt.Errorf("start raft: %w", namedSnapshotFailure(err, files, raftDir))
	}
	go n.watchApplies()
	n.observeLeaders(n.raft)
	n.live.Store(n.raft)
	go n.keepLeaderInPreferredRegion(rc.HeartbeatTimeout)
	n.guard.mu.Lock()
	n.guard.timing = n.setElectionTiming
	n.guard.mu.Unlock()
	return nil
}

// bootstrapConfiguration is the first Raft configuration of a new cluster: this node alone,
// the peers with the member IDs they report (formation.go), or, with a custom Transport
// (tests), the peers as given.
func (n *Node) bootstrapConfiguration(ctx context.Context) (raft.Configuration, error) {
	if len(n.cfg.Peers) == 0 {
		return raft.Configuration{Servers: []raft.Server{{
			Suffrage: raft.Voter, ID: raft.ServerID(n.cfg.ID), Address: n.transport.LocalAddr(),
		}}}, nil
	}
	if n.dial != nil {
		return n.formationConfiguration(ctx)
	}
	var c raft.Configuration
	for _, p := range n.cfg.Peers {
		c.Servers = append(c.Servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.Address)})
	}
	return c, nil
}

// hello is what this node answers a peer that asks who it is.
func (n *Node) hello() hello {
	h := hello{ID: n.cfg.ID, Formed: n.formed.Load(), Region: n.cfg.Region}
	if r := n.live.Load(); r != nil {
		h.Servers = helloServers(r.GetConfiguration().Configuration())
		h.Applied = r.AppliedIndex()
	} else if c := n.formedWith.Load(); c != nil {
		h.Servers = helloServers(*c)
	}
	return h
}

// Internal is the listener of node-to-node gRPC calls, which share the Raft port (and its
// mutual TLS): the server serves its internal services on it, and other nodes reach them at
// this node's Raft address. It is nil with a custom Transport (tests bring their own).
func (n *Node) Internal() net.Listener { return n.internal }

// LogStore is the kind of store that holds this node's Raft log.
func (n *Node) LogStore() LogStore { return n.storeKind }

// FSM is the node's state machine, for local reads.
func (n *Node) FSM() *fsm.FSM { return n.fsm }

// StorageFault is why this node's last write of its Raft log failed (a *StorageError, matching
// ErrStorageFull or ErrStorageFailed), or nil when the last write succeeded.
func (n *Node) StorageFault() error { return n.guard.Fault() }

// setElectionTiming changes raft's heartbeat and election timeouts while it runs (the storage
// guard's backoff).
func (n *Node) setElectionTiming(heartbeat, election time.Duration) {
	rc := n.raft.ReloadableConfig()
	rc.HeartbeatTimeout, rc.ElectionTimeout = heartbeat, election
	if err := n.raft.ReloadConfig(rc); err != nil {
		n.log.Warn("cannot change the election timing", "err", err)
	}
}

// ID is this node's raft server ID.
func (n *Node) ID() string { return n.cfg.ID }

// LastIndex is the index of the newest entry in the log, or of the newest snapshot, whichever
// is higher; it stays readable after Close.
func (n *Node) LastIndex() uint64 { return n.raft.LastIndex() }

// IsLeader reports whether this node believes it leads. Only Apply and ReadBarrier prove it.
func (n *Node) IsLeader() bool { return n.raft.State() == raft.Leader }

// Apply proposes cmd and waits until it is committed and applied, or ctx ends. It returns the
// FSM's answer; an answer that is an error comes back as the error.
func (n *Node) Apply(ctx context.Context, cmd []byte) (any, error) {
	if n.raft.State() != raft.Leader {
		return nil, ErrNotLeader
	}
	leave, err := n.handOver.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	if n.cfg.OnApply != nil {
		defer func(start time.Time) { n.cfg.OnApply(ctx, time.Since(start)) }(time.Now())
	}
	var proposed time.Time
	if n.cfg.OnEntry != nil {
		proposed = time.Now()
	}
	f := n.raft.Apply(cmd, n.enqueueTimeout(ctx))
	if err := n.wait(ctx, f); err != nil {
		return nil, err
	}
	if n.cfg.OnEntry != nil {
		n.cfg.OnEntry(EntryProposed, f.Index(), f.Index(), proposed)
		n.cfg.OnEntry(EntryAnswered, f.Index(), f.Index(), time.Now())
	}
	if n.spans != nil {
		n.spans.spans(ctx, f.Index())
	}
	resp := f.Response()
	if err, ok := resp.(error); ok {
		return nil, err
	}
	return resp, nil
}

// ReadBarrier makes a following read of the local FSM linearizable. It confirms with a
// majority that this node still leads and, once per term, waits until everything committed
// before (possibly by an earlier leader) is applied here: raft's VerifyLeader alone does not,
// and a new leader's FSM may still lag the log it inherited.
func (n *Node) ReadBarrier(ctx context.Context) error {
	if n.raft.State() != raft.Leader {
		return ErrNotLeader
	}
	if term := n.raft.CurrentTerm(); n.caughtUpTerm.Load() != term {
		if err := n.wait(ctx, n.raft.Barrier(n.enqueueTimeout(ctx))); err != nil {
			return err
		}
		n.caughtUpTerm.Store(term)
		return nil // the barrier entry was committed by a majority in this term
	}
	return n.wait(ctx, n.raft.VerifyLeader())
}

// enqueueTimeout bounds how long Apply may wait for room in raft's queue.
func (n *Node) enqueueTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return 5 * time.Second
}

// wait blocks until f resolves, ctx ends or the node closes, translating raft's errors into
// ours. (raft never answers an Apply still queued when it shuts down, hence the last case.)
func (n *Node) wait(ctx context.Context, f raft.Future) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return translate(err)
	case <-ctx.Done():
		// A bound the proposer set with a cause of its own (the identity batcher's) ran out:
		// the cluster did not commit in time. A plain deadline or cancel is the caller's, and
		// is reported as such, not as no quorum.
		if cause := context.Cause(ctx); cause != ctx.Err() {
			return fmt.Errorf("%w: %w", ErrNoQuorum, cause)
		}
		return ctx.Err()
	case <-n.closed:
		return ErrShutdown
	}
}

func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, raft.ErrLeadershipTransferInProgress):
		return ErrHandingOver
	case errors.Is(err, raft.ErrNotLeader):
		return ErrNotLeader
	case errors.Is(err, raft.ErrLeadershipLost):
		return ErrLeadershipLost
	case errors.Is(err, raft.ErrRaftShutdown):
		return ErrShutdown
	case errors.Is(err, raft.ErrEnqueueTimeout):
		return ErrNoQuorum
	}
	return err
}

// Close stops Raft and releases the data dir. It does not leave the cluster. Closing twice
// is harmless.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		close(n.closed)
		err := n.raft.Shutdown().Error()
		if c, ok := n.transport.(interface{ Close() error }); ok {
			err = errors.Join(err, c.Close())
		}
		n.raftLog.close()
		// The journal trails the log (fsm/series.go): what it holds uncommitted is written
		// now, or a restart applies it again from the log.
		err = errors.Join(err, n.fsm.FlushSeries())
		n.closeErr = errors.Join(err, n.store.Close(), n.journal.Close())
	})
	return n.closeErr
}
