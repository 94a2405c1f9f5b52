package datadir

import (
	"context"
	"time"
)

// DefaultHighWaterInterval is how often a running node records how far its Raft log is known
// durable (docs/BENCHMARKS.md, "Data dir high-water mark", measures the cost).
const DefaultHighWaterInterval = time.Second

// FollowHighWater raises the recorded log index to index() every interval until ctx ends, so
// that a log replaced by an older copy after a crash (kill -9, power loss), not only after a
// clean stop, is refused at the next start. index must only report entries that are durable in
// this data dir: the node's applied index (an entry is applied only once stored here, and a
// committed entry is never removed). A write that fails is told to onErr and tried again at the
// next tick. interval <= 0 records nothing: only snapshots and clean stops move the mark.
func (m *Manifest) FollowHighWater(ctx context.Context, interval time.Duration, index func() uint64, onErr func(error)) {
	if interval <= 0 {
		return
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := m.Reached(index()); err != nil {
				onErr(err)
			}
		}
	}
}
