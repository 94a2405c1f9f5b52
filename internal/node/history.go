package node

import (
	"context"

	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/history"
)

// recordHistory starts sampling what the console's graphs show, until the node stops, and
// returns the recorder the HTTP face reads.
func (n *Node) recordHistory(ctx context.Context) *history.Recorder {
	rec := history.NewRecorder(history.Sources{
		Issued:          n.server.Issued,
		CommitIndex:     n.raft.CommitIndex,
		IdentityLatency: n.identityLatency,
		DiskFree:        func() (uint64, error) { return datadir.FreeBytes(n.cfg.DataDir) },
		ClockOffsets:    n.server.ClockOffsets,
		LeaderChanges:   n.server.LeaderMarks,
	}, n.cfg.HistoryInterval, history.DefaultSamples)
	ctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		rec.Run(ctx)
	}()
	n.atStop(func(*error) {
		stop()
		<-done
	})
	return rec
}
