// Command idnode runs one node of an idnode cluster. With no flags it is a working
// single-node cluster: tag A, data in ./idnode-data, gRPC on 127.0.0.1:7070.
//
// `idnode health [--addr host:port]` checks a running node and exits 0 when it is SERVING;
// `idnode version` (or --version) prints the build.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/connlimit"
	"github.com/idnode/idnode/datadir"
	"github.com/idnode/idnode/etag"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/hilopool"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/version"
)

// printVersion is `idnode version` and `idnode --version`.
func printVersion(w io.Writer) {
	fmt.Fprintln(w, "idnode", version.Get())
}

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := dispatch(ctx, os.Args[1:], environFrom(os.Environ()), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "idnode: %v\n", err)
		os.Exit(2)
	}
}

// dispatch picks the subcommand: health, version, help [command], else a node. Help goes to
// stdout (idnode --help | grep tls); errors are the caller's to print, on stderr.
func dispatch(ctx context.Context, args []string, env environ, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return run(ctx, args, env, stdout, stderr)
	}
	switch args[0] {
	case "health":
		return runHealth(ctx, args[1:], env.get, stdout)
	case "version":
		printVersion(stdout)
		return nil
	case "help":
		switch {
		case len(args) == 1:
			return run(ctx, []string{"-h"}, env, stdout, stderr)
		case len(args) == 2 && args[1] == "health":
			return runHealth(ctx, []string{"-h"}, env.get, stdout)
		case len(args) == 2 && args[1] == "version":
			fmt.Fprintln(stdout, "Usage: idnode version   (print the version; also idnode --version)")
			return nil
		}
		return fmt.Errorf("help %s: no such command (commands: health, version, help)", strings.Join(args[1:], " "))
	}
	return run(ctx, args, env, stdout, stderr)
}

// exitHalted is the exit status of a node whose state machine met a Raft command it does not
// know (an older build in a newer cluster): distinct from 2 (bad flags, a refused start), so a
// supervisor can tell that it needs an upgrade, not a restart.
const exitHalted = 3

// exitStorageHalted is the exit status of a node that could not write its Raft term to its
// data dir: the disk needs an operator (the log names the file) before a restart.
const exitStorageHalted = 5

// gracePeriod bounds how long shutdown waits for calls in flight.
const gracePeriod = 5 * time.Second

func run(ctx context.Context, args []string, env environ, stdout, stderr io.Writer) (err error) {
	cfg, err := parseConfig(args, env, stdout)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if cfg.showVersion {
		printVersion(stdout)
		return nil
	}
	log := newLogger(cfg, stderr)
	for _, w := range cfg.warnings {
		log.Warn(w)
	}
	if cfg.adminTokenOnCommandLine {
		log.Warn("the admin token was given as --admin-token: every user of this machine can read it in the process list; give it in --admin-token-file or IDNODE_ADMIN_TOKEN instead")
	}
	memLimit, err := applyMemoryLimit(cfg.memoryLimit, env.get)
	if err != nil {
		return err
	}
	if env.get("GOGC") == "" {
		go followLiveHeap(ctx)
	}
	o, err := loadOps(cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.dataDir, 0o700); err != nil {
		return fmt.Errorf("data dir %s is not usable: %w", cfg.dataDir, err)
	}
	st, found, err := loadIdentity(cfg)
	if err != nil {
		return err
	}
	// Every port is bound before a new node asks to join: one in use must stop it before the
	// cluster counts it as a voter.
	lis, err := net.Listen("tcp", cfg.grpcAddr)
	if err != nil {
		return fmt.Errorf("listen for gRPC on %s: %w", cfg.grpcAddr, err)
	}
	defer lis.Close()
	raftLis, err := net.Listen("tcp", cfg.raftAddr)
	if err != nil {
		return fmt.Errorf("listen for raft on %s: %w", cfg.raftAddr, err)
	}
	defer raftLis.Close()
	var httpLis net.Listener
	if cfg.httpAddr != "" {
		switch httpLis, err = net.Listen("tcp", cfg.httpAddr); {
		case err != nil && !cfg.httpAddrSet:
			// The default port: a second node on the same machine (the three-node tour) finds it
			// taken, and needs HTTP less than it needs to start.
			log.Warn("HTTP/JSON API off: its default address is taken; give this node --http-addr", "addr", cfg.httpAddr, "err", err)
			httpLis, err = nil, nil
		case err != nil:
			return fmt.Errorf("listen for HTTP on %s (--http-addr; empty turns HTTP off): %w", cfg.httpAddr, err)
		default:
			defer httpLis.Close()
		}
	}
	// A new node joins as a non-voter and is made a voter once it serves, so a join that fails
	// half-way never costs the cluster its quorum; it is removed again.
	joining := !found && cfg.join != ""
	if !found {
		if st, err = newIdentity(ctx, cfg, log); err != nil {
			return err
		}
		// Deferred first, so it runs last: after raft and the etag file are closed.
		defer func() {
			if joining && err != nil {
				err = errors.Join(err, leaveAfterFailedJoin(cfg, st, log))
			}
		}()
	}
	log = log.With("node", cfg.tag)
	// Disarmed last, after every other deferred close: the bound covers the whole stop.
	var bound shutdownBound
	defer bound.disarm()
	// The last line a node writes, after raft and the etag file are closed (deferred first, so
	// it runs last): what reached the disk, so an operator reading the log knows the stop was
	// clean.
	var flushed []any
	defer func() {
		if err != nil {
			flushed = append(flushed, "err", err)
		}
		log.Info("stopped", flushed...)
	}()
	manifest, err := datadir.Open(cfg.dataDir, st.KeepsManifest)
	if err != nil {
		return err
	}
	if err := manifest.Check(); err != nil {
		return err
	}
	node, err := cluster.Open(ctx, o.clusterConfig(cluster.Config{
		ID: st.MemberID(), DataDir: cfg.dataDir, RaftListener: raftLis, RaftAdvertise: cfg.raftAdvertise,
		Peers: cfg.peers, Logger: log,
		NoBootstrap: cfg.join != "",
		MinLogIndex: manifest.LogIndex(),
		OnSnapshot: func(index uint64) {
			if err := manifest.Snapshotted(index); err != nil {
				log.Error("recording a snapshot in the data dir manifest", "index", index, "err", err)
			}
		},
		OnStorageHalt: func(err error) {
			log.Error("HALT: the Raft term cannot be written; fix the disk and start the node again", "err", err)
			os.Exit(exitStorageHalted)
		},
		OnHalt: func(index uint64, t fsm.CommandType) {
			log.Error("HALT: the Raft log holds a command this idnode does not know; upgrade this node to the cluster's version and start it again",
				"index", index, "command_type", int(t), "err", fsm.ErrHalted)
			os.Exit(exitHalted)
		},
	}))
	switch {
	case errors.Is(err, cluster.ErrClusterExists):
		// This data dir never became a member and holds no Raft state: leave it empty, so
		// the node can --join.
		return errors.Join(err, datadir.Clear(cfg.dataDir))
	case errors.Is(err, cluster.ErrDamagedStore), errors.Is(err, cluster.ErrLogBehind):
		return fmt.Errorf("%w; %s", err, datadir.WayBack)
	case err != nil:
		return err
	}
	defer closeLogged(log, "raft", func() error {
		// A clean stop records how far the log got, so a log that later ends before that is refused.
		err := errors.Join(node.Close(), manifest.Reached(node.LastIndex()))
		flushed = append(flushed, "raft_last_index", node.LastIndex(), "raft_closed", err == nil)
		return err
	})
	if err := manifest.Record(datadir.RaftStore); err != nil {
		return err
	}
	// Stopped before raft closes (defers run last first): the clean stop records the end.
	stopHighWater := followHighWater(ctx, cfg, manifest, node, log)
	defer stopHighWater()
	if !st.KeepsManifest {
		st.KeepsManifest = true
		if err := datadir.SaveNodeState(cfg.dataDir, st); err != nil {
			return err
		}
	}
	etags, err := etag.Open(filepath.Join(cfg.dataDir, "etag"), 0)
	if err != nil {
		return err
	}
	defer closeLogged(log, "etag counter", func() error {
		err := etags.Close()
		flushed = append(flushed, "etag", etags.Last(), "etag_closed", err == nil)
		return err
	})
	if err := manifest.Record(datadir.Etag); err != nil {
		return err
	}
	var pools server.HiLoPools
	if cfg.hiloPools {
		store, err := hilopool.Open(filepath.Join(cfg.dataDir, string(datadir.HiLoPools)))
		if err != nil {
			return err
		}
		pools = store
		if o.metrics != nil {
			o.metrics.WatchHiLoPools(store)
		}
	}
	fatal := make(chan error, 1)
	srv := server.New(o.serverConfig(server.Config{
		Tag:          cfg.tag,
		GRPCAddress:  cfg.grpcAdvertise,
		RaftAddress:  cfg.raftAdvertise,
		Separator:    cfg.separator,
		MaxCount:     cfg.maxCount,
		Identity:     identity.Options{MaxBatch: cfg.identityBatch},
		ElectionWait: cfg.electionWait,
		Pools:        pools,
		Limits:       cfg.limits,
		Joined:       found && cfg.join != "",
		State:        st,
		SaveState:    func(st datadir.NodeState) error { return datadir.SaveNodeState(cfg.dataDir, st) },
		OnFatal: func(err error) {
			select {
			case fatal <- err:
			default:
			}
		},
		Logger: log,
	}), node, etags)
	gs := grpc.NewServer(append(srv.ServerOptions(), o.grpcOptions()...)...)
	srv.Register(gs)
	// Node-to-node calls: on the Raft port, behind its TLS, never on the client port.
	gi := grpc.NewServer(srv.InternalServerOptions()...)
	srv.RegisterInternal(gi)
	stopMetrics, err := o.serve(gs, node, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	if httpLis != nil {
		stopHTTP, err := serveHTTP(ctx, o, srv, httpLis, log)
		if err != nil {
			return fmt.Errorf("HTTP on %s: %w", cfg.httpAddr, err)
		}
		defer stopHTTP()
	}
	srv.Start()
	serveErr := make(chan error, 2)
	go func() { serveErr <- gs.Serve(connlimit.New(lis, cfg.maxConns, "grpc", log)) }()
	go func() { serveErr <- gi.Serve(connlimit.New(node.Internal(), internalMaxConns, "internal", log)) }()
	if joining {
		if _, err := join(ctx, cfg, st, voter, log); err != nil {
			stopGracefully(gs, gi)
			srv.Close()
			return fmt.Errorf("joined as a non-voter, but becoming a voter failed: %w", err)
		}
		joining = false
	}
	log.Info("idnode serving", "version", version.Get().String(), "tag", cfg.tag, "grpc", lis.Addr().String(), "http", cfg.httpAddr, "memory_limit", memLimit, "raft", cfg.raftAdvertise, "data_dir", cfg.dataDir,
		"tls", cfg.tls != nil, "admin_token", cfg.adminToken != "")

	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err = <-serveErr:
		log.Error("gRPC server stopped", "err", err)
	case err = <-fatal:
	}
	bound.arm(stopBound, log, stderr, func() string {
		if a, ok := node.ApplyInProgress(); ok {
			return "a state machine apply: " + a.String()
		}
		return "no state machine apply; see the goroutine stacks"
	}, os.Exit)
	stopGracefully(gs, gi)
	srv.Close()
	return err
}

// stopGracefully lets calls in flight finish, within gracePeriod.
func stopGracefully(servers ...*grpc.Server) {
	var wg sync.WaitGroup
	for _, gs := range servers {
		wg.Go(gs.GracefulStop)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(gracePeriod):
		for _, gs := range servers {
			gs.Stop()
		}
	}
}

func closeLogged(log *slog.Logger, what string, close func() error) {
	if err := close(); err != nil {
		log.Error("close "+what, "err", err)
	}
}

func newLogger(cfg *config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.logLevel}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.logFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(h)
}
