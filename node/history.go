package node

import (
	"context"

	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/history"
)

// recordHistory starts sampling what the console's graphs show, until the node stops serving
// (stopServing) or its start fails, and returns the recorder the HTTP face reads. It stops
// before the server closes: a sample asks the server for Status, whose probes would dial
// again on a closed server's connections and leave them open.
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
	n.stopHistory = func() { // twice is once: a start that fails stops it in its unwinding
		stop()
		<-done
	}
	n.atStop(func(*error) { n.stopHistory() })
	return rec
}
