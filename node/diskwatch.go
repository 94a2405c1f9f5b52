package node

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/idnode/idnode/internal/datadir"
)

// Disk headroom: the node samples the free bytes of the file system under its data dir and
// judges the days left from the growth over the last hour of its own samples, so that the
// figure needs no Prometheus and a node without metrics has it in Status too.

// Bounds of DiskSampleInterval: a sample a second keeps 3,601 samples for the hour (32 bytes
// each, 115 KB); one every ten minutes still gives the hour seven.
const (
	DefaultDiskSampleInterval = time.Minute
	MinDiskSampleInterval     = time.Second
	MaxDiskSampleInterval     = 10 * time.Minute
)

// diskWindow is how far back the growth is measured.
const diskWindow = time.Hour

type diskSample struct {
	at   time.Time
	free uint64
}

// diskWatch holds the samples of the last diskWindow, oldest first: at most
// diskWindow/interval+1 of them.
type diskWatch struct {
	dir string
	now func() time.Time

	mu      sync.Mutex
	samples []diskSample
}

// sample reads the file system's free bytes. A failed read keeps the samples as they were: the figures then age, the node goes on.
func (w *diskWatch) sample() {
	free, err := datadir.FreeBytes(w.dir)
	if err != nil {
		return
	}
	w.add(diskSample{at: w.now(), free: free})
}

// add keeps s and drops the samples more than diskWindow older.
func (w *diskWatch) add(s diskSample) {
	w.mu.Lock()
	defer w.mu.Unlock()
	keep := 0
	for keep < len(w.samples) && s.at.Sub(w.samples[keep].at) > diskWindow {
		keep++
	}
	w.samples = append(w.samples[keep:], s)
}

// run samples every interval until ctx ends.
func (w *diskWatch) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.sample()
		}
	}
}

// headroom is the free bytes of the last sample and the days until none are left at the rate
// they fell since the oldest sample: +Inf while they did not fall, or before a second sample.
func (w *diskWatch) headroom() (free uint64, fullInDays float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.samples) == 0 {
		return 0, math.Inf(1)
	}
	first, last := w.samples[0], w.samples[len(w.samples)-1]
	elapsed := last.at.Sub(first.at)
	if last.free >= first.free || elapsed <= 0 {
		return last.free, math.Inf(1)
	}
	perDay := float64(first.free-last.free) / elapsed.Hours() * 24
	return last.free, float64(last.free) / perDay
}

// watchDisk takes the first sample of the data dir's disk and samples it every
// Config.DiskSample until the node stops.
func (n *Node) watchDisk() *diskWatch {
	w := &diskWatch{dir: n.cfg.DataDir, now: time.Now}
	w.sample()
	interval := n.cfg.DiskSample
	if interval == 0 {
		interval = DefaultDiskSampleInterval
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(ctx, interval)
	}()
	n.atStop(func(*error) {
		cancel()
		<-done
	})
	return w
}
