// Package node assembles one idnode node from its Config: the data dir, Raft (cluster.Node),
// the server, its gRPC servers on the client port and on the Raft port, the HTTP/JSON face,
// and joining a running cluster (join.go). cmd/idnode and the in-process test cluster both
// start nodes with Start, so a test cluster's node is wired as a real one is.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/connlimit"
	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/durablefile"
	"github.com/idnode/idnode/internal/etag"
	"github.com/idnode/idnode/internal/grpcstop"
	"github.com/idnode/idnode/internal/hilopool"
	"github.com/idnode/idnode/internal/history"
	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/node/httpapi"
	"github.com/idnode/idnode/server"
)

// ExitHalted is the exit status of a node whose state machine met a Raft command it does not
// know (an older build in a newer cluster): distinct from 2 (bad flags, a refused start), so a
// supervisor can tell that it needs an upgrade, not a restart.
const ExitHalted = 3

// ExitStorageHalted is the exit status of a node that could not write its Raft term to its
// data dir: the disk needs an operator (the log names the file) before a restart.
const ExitStorageHalted = 5

// GracePeriod bounds how long a stop waits for calls in flight.
const GracePeriod = 5 * time.Second

// internalMaxConns bounds the internal (node-to-node) server's connections on the Raft port:
// each other node keeps one or two (forwarding, status probes), so this is far above any
// cluster's, and keeps a caller who reaches the Raft port from holding the node's descriptors.
const internalMaxConns = 256

// Node is a running node. Wait returns when it has stopped; Close stops it.
type Node struct {
	cfg      Config
	ctx      context.Context
	log      *slog.Logger
	raft     *cluster.Node
	server   *server.Server
	etags    *etag.Counter
	grpcAddr string
	httpAddr string           // "" while HTTP is off
	raftLis  net.Listener     // nil with a custom Transport
	tracing  *tracing.Tracing // nil while tracing is off
	// backups takes the scheduled backups; nil without a backup store.
	backups *backupScheduler
	// identityLatency counts the identity calls' durations for the console's graphs.
	identityLatency *history.Latency
	// stopHistory stops the console's history from sampling (history.go); nil with HTTP off.
	stopHistory func()
	gs, gi      *grpc.Server

	serveErr chan error
	fatal    chan error
	closing  chan struct{}
	stopping sync.Once
	closeReq sync.Once

	// undo holds what a stop does after the servers stopped, last first (as defers run).
	undo []func(err *error)
	// flushed is what reached the disk, for the last line the node logs.
	flushed   []any
	reason    error // why the node stopped (Wait)
	closeErrs []error
}

// Start assembles the node and returns once it serves: a new node that joins a running cluster
// has become a voter. When ctx ends the node stops; Wait returns then. A start that fails
// undoes what it did, including a join the cluster had accepted.
func Start(ctx context.Context, cfg Config) (_ *Node, err error) {
	n := &Node{cfg: cfg, ctx: ctx, log: cfg.Logger, serveErr: make(chan error, 2), fatal: make(chan error, 1), closing: make(chan struct{})}
	defer func() {
		if err != nil {
			err = n.unwind(err)
		}
	}()
	if n.log == nil {
		n.log = slog.Default()
	}
	if n.cfg.GRPCAdvertise == "" {
		n.cfg.GRPCAdvertise = n.cfg.GRPCAddr
	}
	if err := durablefile.MkdirAll(n.cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir %s is not usable: %w", n.cfg.DataDir, err)
	}
	st, found, err := loadIdentity(&n.cfg)
	if err != nil {
		return nil, err
	}
	lis, httpLis, err := n.listen()
	if err != nil {
		return nil, err
	}
	// A new node joins as a non-voter and is made a voter once it serves, so a join that fails
	// half-way never costs the cluster its quorum; it is removed again.
	joining := !found && n.cfg.Join != ""
	if !found {
		if st, err = newIdentity(ctx, &n.cfg, n.log); err != nil {
			return nil, err
		}
		// First in the stop, so it runs last: after raft and the etag file are closed.
		n.atStop(func(err *error) {
			if joining && *err != nil {
				*err = errors.Join(*err, leaveAfterFailedJoin(&n.cfg, st, n.log))
			}
		})
	}
	n.log = n.log.With("node", n.cfg.Tag)
	// The last line a node writes, after raft and the etag file are closed: what reached the
	// disk, so an operator reading the log knows the stop was clean.
	n.atStop(func(err *error) {
		if *err != nil {
			n.flushed = append(n.flushed, "err", *err)
		}
		n.log.Info("stopped", n.flushed...)
	})
	if err := n.startTracing(); err != nil {
		return nil, err
	}
	if err := n.openStores(ctx, &st); err != nil {
		return nil, err
	}
	pools, err := n.openPools()
	if err != nil {
		return nil, err
	}
	n.identityLatency = &history.Latency{}
	disk := n.watchDisk()
	sc := n.serverConfig(st, found, pools)
	sc.Disk = disk.headroom
	n.server = server.New(sc, n.raft, n.etags)
	// GRPCOptions (metrics) come before the server's own, so that their interceptors run first
	// and count the calls the server's checks refuse (a node not caught up, an unknown key) too.
	opts := append(slices.Clip(n.cfg.GRPCOptions), n.server.ServerOptions()...)
	n.gs = grpc.NewServer(append(opts, n.cfg.ServerOptions...)...)
	n.server.Register(n.gs)
	// Node-to-node calls: on the Raft port, behind its TLS, never on the client port.
	n.gi = grpc.NewServer(append(n.server.InternalServerOptions(), n.cfg.ServerOptions...)...)
	n.server.RegisterInternal(n.gi)
	if n.cfg.ServeMetrics != nil {
		stopMetrics, err := n.cfg.ServeMetrics(n.gs, n.raft, n.server.Headroom, n.log)
		if err != nil {
			return nil, err
		}
		n.atStop(func(*error) { stopMetrics() })
	}
	if err := n.newBackupScheduler(); err != nil {
		return nil, fmt.Errorf("scheduled backups: %w", err)
	}
	if httpLis != nil {
		h := n.cfg.HTTP
		h.Backups = n.backupStatus
		h.GracePeriod = GracePeriod
		h.Tracing = n.tracing
		h.History = n.recordHistory(ctx)
		stopHTTP, err := httpapi.Serve(ctx, n.server, httpLis, h, n.log)
		if err != nil {
			return nil, fmt.Errorf("HTTP on %s: %w", n.cfg.HTTPAddr, err)
		}
		n.atStop(func(*error) { stopHTTP() })
	}
	n.server.Start()
	n.scheduleBackups()
	internal := n.cfg.InternalListener
	if internal == nil {
		internal = n.raft.Internal()
	}
	go func() { n.serveErr <- n.gs.Serve(connlimit.New(lis, n.cfg.MaxConns, "grpc", n.log)) }()
	go func() { n.serveErr <- n.gi.Serve(connlimit.New(internal, internalMaxConns, "internal", n.log)) }()
	if joining {
		if _, err := join(ctx, &n.cfg, st, voter, n.log); err != nil {
			n.stopServing()
			return nil, fmt.Errorf("joined as a non-voter, but becoming a voter failed: %w", err)
		}
		joining = false
	}
	return n, nil
}

// listen binds every port before a new node asks to join: one in use must stop it before the
// cluster counts it as a voter. httpLis is nil when HTTP is off.
func (n *Node) listen() (lis, httpLis net.Listener, err error) {
	if lis = n.cfg.GRPCListener; lis == nil {
		if lis, err = net.Listen("tcp", n.cfg.GRPCAddr); err != nil {
			return nil, nil, fmt.Errorf("listen for gRPC on %s: %w", n.cfg.GRPCAddr, err)
		}
	}
	// The stop closes a copy of lis, not lis itself: lis is a named result, which a failed
	// return below sets to nil before the stop runs.
	grpcLis := lis
	n.atStop(func(*error) { grpcLis.Close() })
	n.grpcAddr = lis.Addr().String()
	if n.cfg.Transport == nil {
		raftLis, err := net.Listen("tcp", n.cfg.RaftAddr)
		if err != nil {
			return nil, nil, fmt.Errorf("listen for raft on %s: %w", n.cfg.RaftAddr, err)
		}
		n.atStop(func(*error) { raftLis.Close() })
		n.raftLis = raftLis
	}
	switch {
	case n.cfg.HTTPListener != nil:
		httpLis = n.cfg.HTTPListener
	case n.cfg.HTTPAddr == "":
		return lis, nil, nil
	default:
		httpLis, err = net.Listen("tcp", n.cfg.HTTPAddr)
	}
	switch {
	case err != nil && !n.cfg.HTTPAddrSet:
		// The default port: a second node on the same machine (the three-node tour) finds it
		// taken, and needs HTTP less than it needs to start.
		n.log.Warn("HTTP/JSON API off: its default address is taken; give this node --http-addr", "addr", n.cfg.HTTPAddr, "err", err)
		return lis, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("listen for HTTP on %s (--http-addr; empty turns HTTP off): %w", n.cfg.HTTPAddr, err)
	}
	n.atStop(func(*error) { httpLis.Close() })
	n.httpAddr = httpLis.Addr().String()
	return lis, httpLis, nil
}

// openStores opens the data dir's manifest, Raft and the etag counter, in that order: a
// piece is recorded in the manifest once it exists. It marks st as keeping the manifest.
func (n *Node) openStores(ctx context.Context, st *datadir.NodeState) error {
	manifest, err := datadir.Open(n.cfg.DataDir, st.KeepsManifest)
	if err != nil {
		return err
	}
	if err := manifest.Check(); err != nil {
		return err
	}
	cc := cluster.Config{
		ID: st.MemberID(), DataDir: n.cfg.DataDir, RaftListener: n.raftLis, RaftAdvertise: n.cfg.RaftAdvertise,
		Peers: n.cfg.Peers, Logger: n.log,
		NoBootstrap: n.cfg.Join != "",
		MinLogIndex: manifest.LogIndex(),
		LogStore:    n.cfg.RaftLog,
		OnSnapshot: func(index uint64) {
			if err := manifest.Snapshotted(index); err != nil {
				n.log.Error("recording a snapshot in the data dir manifest", "index", index, "err", err)
			}
		},
		Transport:       n.cfg.Transport,
		Timing:          n.cfg.Timing,
		Dial:            n.cfg.Dial,
		Region:          n.cfg.Region,
		PreferredRegion: n.cfg.PreferredRegion,
		Tracing:         n.tracing,
	}
	if n.cfg.Transport != nil {
		cc.RaftAddr = n.cfg.RaftAddr
	}
	if n.cfg.Exit != nil {
		cc.OnStorageHalt = func(err error) {
			n.log.Error("HALT: the Raft term cannot be written; fix the disk and start the node again", "err", err)
			n.cfg.Exit(ExitStorageHalted)
		}
		cc.OnHalt = func(h fsm.Halt) {
			if errors.Is(h.Err, fsm.ErrJournalWrite) {
				n.log.Error("HALT: the series journal cannot be written; fix the disk and start the node again: the Raft log still holds every entry",
					"index", h.Index, "err", h.Err)
				n.cfg.Exit(ExitStorageHalted)
				return
			}
			n.log.Error("HALT: the Raft log holds a command this idnode does not know; upgrade this node to the cluster's version and start it again",
				"index", h.Index, "command_type", int(h.Command), "err", h.Err)
			n.cfg.Exit(ExitHalted)
		}
	}
	if n.cfg.ClusterConfig != nil {
		cc = n.cfg.ClusterConfig(cc)
	}
	n.raft, err = cluster.Open(ctx, cc)
	switch {
	case errors.Is(err, cluster.ErrClusterExists):
		// This data dir never became a member and holds no Raft state: leave it empty, so
		// the node can --join.
		return errors.Join(err, datadir.Clear(n.cfg.DataDir))
	case errors.Is(err, cluster.ErrDamagedStore), errors.Is(err, cluster.ErrLogBehind):
		return fmt.Errorf("%w; %s", err, datadir.WayBack)
	case err != nil:
		return err
	}
	n.atStop(func(*error) {
		n.closeLogged("raft", func() error {
			// A clean stop records how far the log got, so a log that later ends before that is refused.
			err := errors.Join(n.raft.Close(), manifest.Reached(n.raft.LastIndex()))
			n.flushed = append(n.flushed, "raft_last_index", n.raft.LastIndex(), "raft_closed", err == nil)
			return err
		})
	})
	logPiece := datadir.RaftStore
	if n.raft.LogStore() == cluster.LogStoreWAL {
		logPiece = datadir.RaftWAL
	}
	if err := manifest.Record(logPiece); err != nil {
		return err
	}
	// Stopped before raft closes: the clean stop records the end.
	stopHighWater := followHighWater(ctx, &n.cfg, manifest, n.raft, n.log)
	n.atStop(func(*error) { stopHighWater() })
	if !st.KeepsManifest {
		st.KeepsManifest = true
		if err := datadir.SaveNodeState(n.cfg.DataDir, *st); err != nil {
			return err
		}
	}
	if n.etags, err = etag.Open(filepath.Join(n.cfg.DataDir, "etag"), 0); err != nil {
		return err
	}
	n.atStop(func(*error) {
		n.closeLogged("etag counter", func() error {
			err := n.etags.Close()
			n.flushed = append(n.flushed, "etag", n.etags.Last(), "etag_closed", err == nil)
			return err
		})
	})
	return manifest.Record(datadir.Etag)
}

// openPools opens the node's HiLo pools file, when pools are on (nil otherwise).
func (n *Node) openPools() (server.HiLoPools, error) {
	if !n.cfg.HiLoPools {
		return nil, nil
	}
	store, err := hilopool.Open(filepath.Join(n.cfg.DataDir, string(datadir.HiLoPools)))
	if err != nil {
		return nil, err
	}
	if n.cfg.WatchHiLoPools != nil {
		n.cfg.WatchHiLoPools(store)
	}
	return store, nil
}

func (n *Node) serverConfig(st datadir.NodeState, found bool, pools server.HiLoPools) server.Config {
	dataDir := n.cfg.DataDir
	sc := server.Config{
		Tag:                  n.cfg.Tag,
		GRPCAddress:          n.cfg.GRPCAdvertise,
		RaftAddress:          n.cfg.RaftAdvertise,
		Separator:            n.cfg.Separator,
		MaxCount:             n.cfg.MaxCount,
		Identity:             identity.Options{MaxBatch: n.cfg.IdentityBatch, Linger: identity.DefaultOptions.Linger},
		ElectionWait:         n.cfg.ElectionWait,
		ClockOffsetWarn:      n.cfg.ClockOffsetWarn,
		ReplicaCheckInterval: n.cfg.ReplicaCheckInterval,
		Pools:                pools,
		Limits:               n.cfg.Limits,
		Joined:               found && n.cfg.Join != "",
		State:                st,
		SaveState:            func(st datadir.NodeState) error { return datadir.SaveNodeState(dataDir, st) },
		OnFatal: func(err error) {
			select {
			case n.fatal <- err:
			default:
			}
		},
		Dial:           n.cfg.Dial,
		Logger:         n.log,
		Tracing:        n.tracing,
		OnIdentityCall: n.identityLatency.Observe,
	}
	if n.cfg.ServerConfig != nil {
		sc = n.cfg.ServerConfig(sc)
	}
	return sc
}

// Wait returns once the node has stopped: its context ended, Close was called, a gRPC server
// stopped, or the server met an error it cannot serve past. It returns why (nil when it was
// asked to stop); what failed while closing is logged.
func (n *Node) Wait() error {
	n.stopping.Do(func() {
		var err error
		select {
		case <-n.ctx.Done():
			n.log.Info("shutting down")
		case <-n.closing:
			n.log.Info("shutting down")
		case err = <-n.serveErr:
			n.log.Error("gRPC server stopped", "err", err)
		case err = <-n.fatal:
		}
		if n.cfg.BeforeStop != nil {
			n.cfg.BeforeStop(n)
		}
		n.stopServing()
		n.reason = n.unwind(err)
	})
	return n.reason
}

// Close stops the node and returns what failed while closing its stores (raft, the etag
// counter), which Wait only logs.
func (n *Node) Close() error {
	n.closeReq.Do(func() { close(n.closing) })
	_ = n.Wait()
	return errors.Join(n.closeErrs...)
}

// stopServing lets calls in flight finish, within GracePeriod, and stops the server.
func (n *Node) stopServing() {
	if n.stopHistory != nil {
		n.stopHistory()
	}
	grpcstop.Gracefully(GracePeriod, n.gs, n.gi)
	n.server.Close()
}

// atStop adds a step to the stop; steps run last first, as defers do, and may change the
// error the stop returns.
func (n *Node) atStop(step func(err *error)) { n.undo = append(n.undo, step) }

// unwind runs the stop's steps and returns err as they leave it.
func (n *Node) unwind(err error) error {
	for i := len(n.undo) - 1; i >= 0; i-- {
		n.undo[i](&err)
	}
	n.undo = nil
	return err
}

func (n *Node) closeLogged(what string, close func() error) {
	if err := close(); err != nil {
		n.log.Error("close "+what, "err", err)
		n.closeErrs = append(n.closeErrs, fmt.Errorf("close %s: %w", what, err))
	}
}

// Logger is the node's logger, naming the node.
func (n *Node) Logger() *slog.Logger { return n.log }

// Tag is the node's tag (from its data dir, the flags, or the cluster it joined).
func (n *Node) Tag() string { return n.cfg.Tag }

// GRPCAddr is the address the client port listens on.
func (n *Node) GRPCAddr() string { return n.grpcAddr }

// HTTPAddr is the address the HTTP/JSON API listens on: not the one asked for, which may have
// been taken (see listen); "off" when it serves nowhere.
func (n *Node) HTTPAddr() string {
	if n.httpAddr == "" {
		return "off"
	}
	return n.httpAddr
}

// RaftAdvertise is where other nodes reach this node's Raft.
func (n *Node) RaftAdvertise() string { return n.cfg.RaftAdvertise }

// Cluster is the node's Raft side.
func (n *Node) Cluster() *cluster.Node { return n.raft }

// Server is the node's gRPC services.
func (n *Node) Server() *server.Server { return n.server }
