package node

import (
	"context"
	"log/slog"
	"sync"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/datadir"
)

// followHighWater records in the data dir's manifest, every --high-water-interval, the newest
// Raft index this node has applied, so a raft.db put back from an older copy is refused at the
// next start also after kill -9. It returns the function that stops it.
func followHighWater(ctx context.Context, cfg *Config, manifest *datadir.Manifest, node *cluster.Node, log *slog.Logger) func() {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		manifest.FollowHighWater(ctx, cfg.HighWater, node.AppliedIndex, func(err error) {
			log.Error("recording the raft log's high-water mark in the data dir manifest", "err", err)
		})
	})
	return func() { cancel(); wg.Wait() }
}
