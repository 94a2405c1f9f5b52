package main

import (
	"context"
	"fmt"

	"github.com/idnode/idnode/client"
)

// dialGoClients opens --conns Go clients, each with a connection to every node, and returns
// them with the function that closes them (which also gives unused HiLo tails back).
func dialGoClients(ctx context.Context, cfg *config) ([]*client.Client, func(), error) {
	var clients []*client.Client
	closeAll := func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.timeout)
		defer cancel()
		for _, c := range clients {
			_ = c.Close(cctx)
		}
	}
	opts := []client.Option{client.WithCallTimeout(cfg.timeout)}
	if cfg.region != "" {
		opts = append(opts, client.WithRegion(cfg.region, cfg.nodeRegions))
	}
	for range cfg.conns {
		c, err := client.Dial(ctx, cfg.nodes, opts...)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		clients = append(clients, c)
	}
	return clients, closeAll, nil
}

// newGoClientWorkload (--via go-client): every op is the Go client's call, as an application
// makes it: identities are client.NextIdentity (one value per call folds with the other
// callers' of the same counter, fold.go in the client), or with --identity-call generate
// client.Generate("<prefix>|", count), one call each (what an opaque collection answers, so
// that plain and opaque identities are measured through the same call), sent to the leader
// the client learned from the nodes' idnode-leader header (falling back to the other nodes); GUIDs and
// server-side IDs are client.Generate, spread over the nodes; UNAVAILABLE is retried on
// another node within the call's timeout. Callers share the clients round-robin.
func newGoClientWorkload(ctx context.Context, cfg *config) (*workload, error) {
	clients, closeAll, err := dialGoClients(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// One GUID per client before the clock starts (no Raft, no counter moved): its answer
	// names the leader, so the run measures a client that is already warm, like an
	// application's, not its first call's connection set-up.
	cctx, cancel := context.WithTimeout(ctx, cfg.connect)
	defer cancel()
	for _, c := range clients {
		if _, err := c.Generate(cctx, "", 1); err != nil {
			closeAll()
			return nil, fmt.Errorf("first call through the Go client to %v: %w (is an idnode serving there?)", cfg.nodes, err)
		}
	}
	id, count := generateRequest(cfg)
	identity := cfg.strategy == stratIdentity || cfg.strategy == stratIdentityBatch
	names := &nameCycle{prefix: cfg.prefix, n: cfg.names}
	want := cfg.idsPerOp()
	ops := goClientOps(cfg, clients, func(ctx context.Context, c *client.Client, _ int) (int64, error) {
		id := id
		if identity && cfg.identityCall == identityCallGenerate {
			id = names.name() + "|"
		} else if identity {
			name := names.name()
			b, err := c.NextIdentity(ctx, name, count)
			if err != nil {
				return 0, err
			}
			if got := b.Len(); got != want {
				return 0, fmt.Errorf("%w: NextIdentity(%q, count %d) returned %d values", errBadResponse, name, count, got)
			}
			return want, nil
		}
		ids, err := c.Generate(ctx, id, count)
		if err != nil {
			return 0, err
		}
		if got := int64(len(ids)); got != want {
			return 0, fmt.Errorf("%w: Generate(%q, count %d) returned %d IDs", errBadResponse, id, count, got)
		}
		return want, nil
	})
	return &workload{ops: ops, close: closeAll}, nil
}

// goClientOps makes the op of every caller: call through the caller's client (callers share
// the clients round-robin), given the caller's number and a context bounded by --timeout.
func goClientOps(cfg *config, clients []*client.Client, call func(ctx context.Context, c *client.Client, caller int) (int64, error)) []op {
	ops := make([]op, cfg.concurrency)
	for i := range ops {
		c := clients[i%len(clients)]
		ops[i] = func(ctx context.Context) (int64, error) {
			ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
			defer cancel()
			return call(ctx, c, i)
		}
	}
	return ops
}
