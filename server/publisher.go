package server

import (
	"context"
	"sync/atomic"
	"time"
)

// publisher is what the etag record and the pool marks share: a publication to the cluster
// that waits at most raiseWait, and not at all while the last one failed (a node cut off keeps
// handing out), and the wake-up and backoff of the background loop that retries it.
type publisher struct {
	failing atomic.Bool
	wake    chan struct{}
}

func newPublisher() publisher { return publisher{wake: make(chan struct{}, 1)} }

// soon runs publish with a raiseWait bound, unless the last publication failed; when it does
// not succeed, the background loop is woken to retry.
func (p *publisher) soon(publish func(context.Context) error) {
	if !p.failing.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), raiseWait)
		defer cancel()
		if publish(ctx) == nil {
			return
		}
	}
	p.kick()
}

// outcome records whether a publication failed and returns err.
func (p *publisher) outcome(err error) error {
	p.failing.Store(err != nil)
	return err
}

func (p *publisher) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// idle waits for a kick or the end of ctx.
func (p *publisher) idle(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-p.wake:
	}
}

// The background loops retry a failed publication after firstBackoff, doubling up to maxBackoff.
const (
	firstBackoff = 50 * time.Millisecond
	maxBackoff   = 2 * time.Second
)

// backOff waits backoff (or until ctx ends) and returns the next wait.
func backOff(ctx context.Context, backoff time.Duration) time.Duration {
	select {
	case <-ctx.Done():
	case <-time.After(backoff):
	}
	return min(2*backoff, maxBackoff)
}
