package history

import (
	"context"
	"math"
	"time"
)

// Sources are where a Recorder reads the node's figures; a nil one leaves its series empty.
type Sources struct {
	// Issued counts the IDs handed out since the node started, by strategy.
	Issued func() map[string]uint64
	// CommitIndex is the node's Raft commit index.
	CommitIndex func() uint64
	// IdentityLatency counts the identity calls' durations.
	IdentityLatency *Latency
	// DiskFree is the free bytes under the data dir.
	DiskFree func() (uint64, error)
	// ClockOffsets is each node's clock offset from the leader, by tag; it may ask other
	// nodes, within ctx.
	ClockOffsets func(ctx context.Context) map[string]time.Duration
	// LeaderChanges are the leadership changes of the last hour, oldest first.
	LeaderChanges func() []Mark
}

// Mark is a change of leader, marked on the graphs' time axis.
type Mark struct {
	AtMs   int64  `json:"atMs"`
	Leader string `json:"leader"` // empty: no leader (an election under way)
	Term   uint64 `json:"term"`
}

// Recorder takes a sample of its Sources every interval into its Store.
type Recorder struct {
	store    *Store
	sources  Sources
	interval time.Duration
	now      func() time.Time
	// The previous sample's counts, for rates: none before the first.
	last       time.Time
	lastIssued map[string]uint64
	lastCommit uint64
}

// NewRecorder keeps samples of sources taken every interval (DefaultInterval when 0 or less)
// in a Store of samples samples (DefaultSamples when 0 or less).
func NewRecorder(sources Sources, interval time.Duration, samples int) *Recorder {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if samples <= 0 {
		samples = DefaultSamples
	}
	return &Recorder{store: NewStore(samples), sources: sources, interval: interval, now: time.Now}
}

// Run samples until ctx ends.
func (r *Recorder) Run(ctx context.Context) {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	r.sample(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.sample(ctx)
		}
	}
}

// sample reads the sources once and records what they say. Rates are over the time since
// the previous sample, so the first sample has none.
func (r *Recorder) sample(ctx context.Context) {
	now := r.now()
	s := Sample{}
	seconds := now.Sub(r.last).Seconds()
	first := r.last.IsZero() || seconds <= 0
	if r.sources.Issued != nil {
		issued := r.sources.Issued()
		if !first {
			rates := map[string]float64{}
			for strategy, n := range issued {
				rates[strategy] = rate(n, r.lastIssued[strategy], seconds)
			}
			s[IDs] = rates
		}
		r.lastIssued = issued
	}
	if r.sources.CommitIndex != nil {
		commit := r.sources.CommitIndex()
		if !first {
			s[CommitRate] = map[string]float64{"commit_index": rate(commit, r.lastCommit, seconds)}
		}
		r.lastCommit = commit
	}
	if r.sources.IdentityLatency != nil {
		if q, ok := r.sources.IdentityLatency.take(0.5, 0.99); ok {
			s[IdentityLatency] = map[string]float64{"p50": milliseconds(q[0]), "p99": milliseconds(q[1])}
		}
	}
	if r.sources.DiskFree != nil {
		if free, err := r.sources.DiskFree(); err == nil {
			s[DiskFree] = map[string]float64{"data_dir": float64(free)}
		}
	}
	if r.sources.ClockOffsets != nil {
		offsets := map[string]float64{}
		for tag, d := range r.sources.ClockOffsets(ctx) {
			offsets[tag] = milliseconds(d)
		}
		s[ClockOffset] = offsets
	}
	r.store.Record(now, s)
	r.last = now
}

// rate is a counter's rise per second; a counter that went back (a restarted source) has
// no rate.
func rate(now, before uint64, seconds float64) float64 {
	if now < before {
		return math.NaN()
	}
	return float64(now-before) / seconds
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
