// Package publication is what a node's etag record and its HiLo pool marks share:
// a publication of local progress to the cluster that waits at most RaiseWait, and not at all
// while the last one failed (a node cut off keeps handing out), and the wake-up and backoff of
// the background loop that retries it.
package publication

import (
	"context"
	"sync/atomic"
	"time"
)

const (
	// RaiseWait bounds how long new progress waits for the cluster to record it.
	RaiseWait = time.Second
	// StartWait bounds how long a starting node waits for its record, which needs a leader;
	// past it a node that is cut off serves from its files alone. A leader can take seconds to
	// find a node that comes back: raft backs its replication to a failed follower off up to
	// 10.24 s, and a dial to the node's old address waits for its timeout (the chaos suite's
	// rollback schedule saw 7 s); 15 s covers both.
	StartWait = 15 * time.Second
)

// The background loops retry a failed publication after FirstBackoff, doubling up to maxBackoff.
const (
	FirstBackoff = 50 * time.Millisecond
	maxBackoff   = 2 * time.Second
)

// Publisher publishes one kind of progress; New makes one.
type Publisher struct {
	failing atomic.Bool
	wake    chan struct{}
}

// New returns a Publisher whose last publication did not fail.
func New() Publisher { return Publisher{wake: make(chan struct{}, 1)} }

// Soon runs publish with a RaiseWait bound, unless the last publication failed; when it does
// not succeed, the background loop is woken to retry.
func (p *Publisher) Soon(publish func(context.Context) error) {
	if !p.failing.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), RaiseWait)
		defer cancel()
		if publish(ctx) == nil {
			return
		}
	}
	p.Kick()
}

// Outcome records whether a publication failed and returns err.
func (p *Publisher) Outcome(err error) error {
	p.failing.Store(err != nil)
	return err
}

// Kick wakes the background loop.
func (p *Publisher) Kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Idle waits for a kick or the end of ctx.
func (p *Publisher) Idle(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-p.wake:
	}
}

// BackOff waits backoff (or until ctx ends) and returns the next wait.
func BackOff(ctx context.Context, backoff time.Duration) time.Duration {
	select {
	case <-ctx.Done():
	case <-time.After(backoff):
	}
	return min(2*backoff, maxBackoff)
}

// Closed reports whether ch is closed.
func Closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
