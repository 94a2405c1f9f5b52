package main

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// newIdnodeWorkload opens --conns connections to every node and gives each caller one, in
// round-robin order over the nodes first (caller 0 → node 1, caller 1 → node 2, …), so callers
// are spread evenly over the nodes and then over each node's connections.
func newIdnodeWorkload(ctx context.Context, cfg *config) (*workload, error) {
	var conns []*grpc.ClientConn
	closeAll := func() {
		for _, cc := range conns {
			_ = cc.Close()
		}
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.connect)
	defer cancel()
	for range cfg.conns {
		for _, addr := range cfg.nodes {
			cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				closeAll()
				return nil, fmt.Errorf("connect to %s: %w", addr, err)
			}
			conns = append(conns, cc)
			if err := waitReady(cctx, cc); err != nil {
				closeAll()
				return nil, fmt.Errorf("connect to %s: %w (is an idnode serving there?)", addr, err)
			}
		}
	}
	ops := make([]op, cfg.concurrency)
	for i := range ops {
		client := idnodev1.NewIdServiceClient(conns[i%len(conns)])
		ops[i] = idnodeOp(cfg, client)
	}
	return &workload{ops: ops, close: closeAll}, nil
}

// waitReady connects cc and waits until it is READY or ctx ends.
func waitReady(ctx context.Context, cc *grpc.ClientConn) error {
	cc.Connect()
	for {
		s := cc.GetState()
		if s == connectivity.Ready {
			return nil
		}
		if !cc.WaitForStateChange(ctx, s) {
			return fmt.Errorf("not ready (%v): %w", s, ctx.Err())
		}
	}
}

// idnodeOp is one caller's call for cfg.strategy. Each caller has its own request message.
func idnodeOp(cfg *config, client idnodev1.IdServiceClient) op {
	if cfg.strategy == stratHiLoRange {
		req := &idnodev1.NextHiLoRequest{Tag: cfg.prefix}
		return func(ctx context.Context) (int64, error) {
			ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
			defer cancel()
			resp, err := client.NextHiLo(ctx, req)
			if err != nil {
				return 0, err
			}
			n := resp.GetHigh() - resp.GetLow() + 1
			if resp.GetLow() < 1 || n < 1 {
				return 0, fmt.Errorf("%w: NextHiLo range [%d, %d]", errBadResponse, resp.GetLow(), resp.GetHigh())
			}
			return n, nil
		}
	}
	req := &idnodev1.GenerateRequest{}
	switch cfg.strategy {
	case stratIdentity:
		req.Id = cfg.prefix + "|"
	case stratIdentityBatch:
		req.Id, req.Count = cfg.prefix+"|", cfg.count
	case stratServerSide:
		req.Id, req.Count = cfg.prefix+"/", cfg.count
	case stratGUID:
		req.Id = ""
	}
	want := cfg.idsPerOp()
	return func(ctx context.Context) (int64, error) {
		ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
		resp, err := client.Generate(ctx, req)
		if err != nil {
			return 0, err
		}
		if got := int64(len(resp.GetIds())); got != want {
			return 0, fmt.Errorf("%w: Generate(%q, count %d) returned %d IDs", errBadResponse, req.Id, req.Count, got)
		}
		return want, nil
	}
}
