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
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/idnode/idnode/internal/version"
	"github.com/idnode/idnode/node"
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

// run runs a node: it parses the flags, starts the node (package node) and bounds how long
// its stop may take.
func run(ctx context.Context, args []string, env environ, stdout, stderr io.Writer) error {
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
		followLiveHeap(ctx)
	}
	o, err := loadOps(cfg)
	if err != nil {
		return err
	}
	// Disarmed last, after the node's stop: the bound covers the whole stop.
	var bound shutdownBound
	defer bound.disarm()
	nc := o.nodeConfig(log, func(n *node.Node) {
		bound.arm(stopBound, n.Logger(), stderr, func() string {
			if a, ok := n.Cluster().ApplyInProgress(); ok {
				return "a state machine apply: " + a.String()
			}
			return "no state machine apply; see the goroutine stacks"
		}, os.Exit)
	})
	if nc.Backups, err = cfg.backups.schedule(ctx, o.backupObserver()); err != nil {
		return err
	}
	n, err := node.Start(ctx, nc)
	if err != nil {
		return err
	}
	n.Logger().Info("idnode serving", "version", version.Get().String(), "tag", n.Tag(), "grpc", n.GRPCAddr(), "http", n.HTTPAddr(), "memory_limit", memLimit, "raft", n.RaftAdvertise(), "data_dir", cfg.dataDir, "raft_log", n.Cluster().LogStore(),
		"tls", cfg.tls != nil, "admin_token", cfg.adminToken != "")
	return n.Wait()
}

func newLogger(cfg *config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.logLevel}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.logFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(h)
}
