package cluster

import (
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"
)

// peerSummaryInterval is how often raft's complaints about one peer are written while they
// go on. Raft writes one per heartbeat and one per replication attempt to a peer that does
// not answer, about 160 a minute; an operator needs the first one, and then to know it goes on.
const peerSummaryInterval = 30 * time.Second

// stopper is the part of *time.Timer a summary needs: tests give their own.
type stopper interface{ Stop() bool }

func afterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// peerFailures summarises raft's warnings and errors about a peer: the first is written at
// once, the ones that follow within an interval are counted, and each interval that had any
// ends with one line giving their number and the last one. An interval without any ends the
// run: the next failure is written at once again.
//
// These lines are warnings, whatever raft called them: they say another node does not answer
// or disagrees, which this node can do nothing about, and idnode's own health, metrics and
// Status report the peer.
type peerFailures struct {
	write    func(level slog.Level, msg string, attrs []any)
	interval time.Duration
	after    func(time.Duration, func()) stopper

	mu     sync.Mutex
	runs   map[string]*failureRun // by peer
	closed bool
}

// failureRun is one peer's failures since its last line.
type failureRun struct {
	count   int
	lastMsg string
	lastErr string
	timer   stopper
}

func newPeerFailures(write func(slog.Level, string, []any), interval time.Duration, after func(time.Duration, func()) stopper) *peerFailures {
	return &peerFailures{write: write, interval: interval, after: after, runs: map[string]*failureRun{}}
}

// failed reports one raft line (msg, with attrs as the sink rendered them) about peer.
func (p *peerFailures) failed(peer, msg, err string, attrs []any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.runs[peer]; ok && !p.closed {
		r.count++
		r.lastMsg = msg
		if err != "" {
			r.lastErr = err
		}
		return
	}
	p.write(slog.LevelWarn, msg, attrs)
	if p.closed {
		return
	}
	r := &failureRun{}
	p.runs[peer] = r
	r.timer = p.after(p.interval, func() { p.endInterval(peer, r) })
}

// endInterval writes the summary of r's interval, or ends the run if the interval had no
// failure.
func (p *peerFailures) endInterval(peer string, r *failureRun) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.runs[peer] != r {
		return
	}
	if r.count == 0 {
		delete(p.runs, peer)
		return
	}
	p.summarise(peer, r)
	r.timer = p.after(p.interval, func() { p.endInterval(peer, r) })
}

func (p *peerFailures) summarise(peer string, r *failureRun) {
	p.write(slog.LevelWarn, "raft keeps failing with a peer", []any{
		"component", "raft", "peer", peer, "failures", r.count, "interval", p.interval,
		"last_msg", r.lastMsg, "last_error", r.lastErr,
	})
	r.count, r.lastMsg, r.lastErr = 0, "", ""
}

// close writes the summaries of the intervals under way; from then on every line is written
// as it comes (raft has shut down, or is about to).
func (p *peerFailures) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, peer := range slices.Sorted(maps.Keys(p.runs)) {
		r := p.runs[peer]
		r.timer.Stop()
		if r.count > 0 {
			p.summarise(peer, r)
		}
	}
	p.runs = nil
}
