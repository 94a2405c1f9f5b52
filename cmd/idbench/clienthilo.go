package main

import (
	"context"
	"hash/maphash"
	"slices"

	"github.com/idnode/idnode/client"
)

// maxUniqueChecked bounds the memory of client-hilo's uniqueness check: 8 bytes per ID, so
// at most 40 MB however long the run.
const maxUniqueChecked = 5_000_000

// newClientHiLoWorkload: every op is client.NextID(ctx, prefix), HiLo IDs from the Go client
// the way an application gets them. --conns clients (each with one connection per node) are
// shared by the callers round-robin; their generators fetch ranges ahead, so most calls never
// leave the process. Every ID (up to maxUniqueChecked) is remembered by hash and checked for
// duplicates at the end, and the generators' stats (fetches, stalls) are reported. Close gives
// the unused range tails back.
func newClientHiLoWorkload(ctx context.Context, cfg *config) (*workload, error) {
	clients, closeAll, err := dialGoClients(ctx, cfg)
	if err != nil {
		return nil, err
	}
	seed := maphash.MakeSeed()
	seen := make([][]uint64, cfg.concurrency) // per caller
	budget := maxUniqueChecked / cfg.concurrency
	ops := goClientOps(cfg, clients, func(ctx context.Context, c *client.Client, caller int) (int64, error) {
		id, err := c.NextID(ctx, cfg.prefix)
		if err != nil {
			return 0, err
		}
		if len(seen[caller]) < budget {
			seen[caller] = append(seen[caller], maphash.String(seed, id))
		}
		return 1, nil
	})
	unique := func() *uniqueCheck {
		var all []uint64
		for _, s := range seen {
			all = append(all, s...)
		}
		slices.Sort(all)
		u := &uniqueCheck{Checked: int64(len(all))}
		for i := 1; i < len(all); i++ {
			if all[i] == all[i-1] {
				u.Duplicates++
			}
		}
		return u
	}
	generators := func() *generatorStats {
		var gs generatorStats
		for _, c := range clients {
			g, err := c.Generator(cfg.prefix)
			if err != nil {
				continue // the prefix was refused: every call failed and says so
			}
			st := g.Stats()
			gs.Fetches += st.Fetches
			gs.Stalls += st.Stalls
			gs.Waits += st.Waits
			gs.RangeSize = max(gs.RangeSize, st.RangeSize)
		}
		return &gs
	}
	return &workload{ops: ops, unique: unique, hilo: generators, close: closeAll}, nil
}
