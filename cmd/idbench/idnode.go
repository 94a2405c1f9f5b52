package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// newIdnodeWorkload (--via round-robin, and the strategies that are not Generate) opens --conns
// raw gRPC connections to every node and gives each caller one, in round-robin order over the
// nodes first (caller 0 → node 1, caller 1 → node 2, …), so callers are spread evenly over the
// nodes and then over each node's connections, as ghz or a client in another language without
// leader routing would: a follower relays the calls that need the leader.
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
	names := &nameCycle{prefix: cfg.prefix, n: cfg.names}
	if cfg.strategy == stratSeries {
		if err := createSeries(ctx, cfg, conns[0]); err != nil {
			closeAll()
			return nil, err
		}
		for i := range ops {
			ops[i] = seriesOp(cfg, idnodev1.NewSeriesServiceClient(conns[i%len(conns)]), i, names)
		}
		return &workload{ops: ops, close: closeAll}, nil
	}
	for i := range ops {
		client := idnodev1.NewIdServiceClient(conns[i%len(conns)])
		ops[i] = idnodeOp(cfg, client, i, names)
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

// nameCycle hands the callers the names of --names in turn: <prefix>-0, <prefix>-1, … and
// round again, so a run of --ops n creates each of n counters or tags once, and a longer run
// touches every one of them equally often. Without --names it is always the prefix.
type nameCycle struct {
	prefix string
	n      int64
	next   atomic.Int64
}

func (c *nameCycle) name() string {
	if c.n == 0 {
		return c.prefix
	}
	return c.prefix + "-" + strconv.FormatInt((c.next.Add(1)-1)%c.n, 10)
}

// idnodeOp returns the call that caller makes for cfg.strategy. Each caller has its own request message.
func idnodeOp(cfg *config, client idnodev1.IdServiceClient, caller int, names *nameCycle) op {
	if cfg.strategy == stratClaim {
		return claimOp(cfg, client, caller)
	}
	if cfg.strategy == stratHiLoRange {
		// With --range-size, every call asks for that size: last_batch_size without
		// last_range_at is granted as is by the range policy (no growing or shrinking), so two
		// runs, or two clusters, grant the same numbers per call.
		req := &idnodev1.NextHiLoRequest{LastBatchSize: cfg.rangeSize}
		return func(ctx context.Context) (int64, error) {
			ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
			defer cancel()
			req.Tag = names.name()
			resp, err := client.NextHiLo(ctx, req)
			if err != nil {
				return 0, err
			}
			n := resp.GetHigh() - resp.GetLow() + 1
			if resp.GetLow() < 1 || n < 1 {
				return 0, fmt.Errorf("%w: NextHiLo range [%d, %d]", errBadResponse, resp.GetLow(), resp.GetHigh())
			}
			if cfg.rangeSize > 0 && n != cfg.rangeSize {
				return 0, fmt.Errorf("%w: NextHiLo granted [%d, %d], %d numbers; asked for %d", errBadResponse, resp.GetLow(), resp.GetHigh(), n, cfg.rangeSize)
			}
			return n, nil
		}
	}
	req := &idnodev1.GenerateRequest{}
	req.Id, req.Count = generateRequest(cfg)
	identity := cfg.strategy == stratIdentity || cfg.strategy == stratIdentityBatch
	want := cfg.idsPerOp()
	return func(ctx context.Context) (int64, error) {
		ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
		if identity {
			req.Id = names.name() + "|"
		}
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

// claimNumberBase is where --claim-ids numbers starts: identity-shaped IDs that no identity
// counter of a benchmark reaches, so they are claimed without conflicts and every identity of
// the prefix looks them up (fsm: a prefix with claims checks each value it hands out).
const claimNumberBase = 1_000_000_000_000

// claimID is the ID caller claims as its seq-th (from 0): "<prefix>/<caller>-<seq>" for names,
// "<prefix>/<n>" with n = claimNumberBase + seq·callers + caller for numbers. Both are unique
// over the callers of one run, and the same from run to run (so a second run on the same
// prefix finds them taken, and two runs claim IDs of the same lengths).
func claimID(cfg *config, caller int, seq int64) string {
	if cfg.claimIDs == claimNumbers {
		n := claimNumberBase + seq*int64(cfg.concurrency) + int64(caller)
		return cfg.prefix + "/" + strconv.FormatInt(n, 10)
	}
	return cfg.prefix + "/" + strconv.Itoa(caller) + "-" + strconv.FormatInt(seq, 10)
}

// claimOp claims cfg.count new IDs per call, in one Claim. A failed call's IDs are not tried
// again: the next call takes the next ones, so a call that failed after it was applied does
// not make the rest of the run collide with it.
func claimOp(cfg *config, client idnodev1.IdServiceClient, caller int) op {
	req := &idnodev1.ClaimRequest{Ids: make([]string, 0, cfg.count)}
	var seq int64
	return func(ctx context.Context) (int64, error) {
		req.Ids = req.Ids[:0]
		for range cfg.count {
			req.Ids = append(req.Ids, claimID(cfg, caller, seq))
			seq++
		}
		ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
		if _, err := client.Claim(ctx, req); err != nil {
			return 0, err
		}
		return cfg.count, nil
	}
}

// generateRequest is the request string and count of a Generate strategy (count 0: one ID,
// the way a caller that does not batch sends it).
func generateRequest(cfg *config) (id string, count int64) {
	switch cfg.strategy {
	case stratIdentity:
		return cfg.prefix + "|", 0
	case stratIdentityBatch:
		return cfg.prefix + "|", cfg.count
	case stratServerSide:
		return cfg.prefix + "/", cfg.count
	}
	return "", 0 // guid
}
