package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idnode/idnode/internal/publication"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// The etag record: each new reserve-ahead watermark of the etag counter is
// published through Raft into this node's record, and a starting node skips every etag up to
// the record before it hands out one. An older copy of the etag file (a restored VM or data
// dir backup) then costs a gap, never a repeat.
//
// A node cut off from the majority keeps handing out server-side IDs (they need no quorum), so
// the publication never blocks issuance for long: a raise waits for it at most RaiseWait, and
// not at all while the last publication failed; the newest watermark is then published in the
// background as soon as a leader answers. What remains is documented in docs/DESIGN.md
// (Rollback): etags handed out above the record while it could not be published.

// etagRecord publishes the etag counter's watermarks. It is safe for concurrent use.
type etagRecord struct {
	s *Server
	// target is the highest watermark to publish; published the highest the cluster recorded.
	target, published atomic.Uint64
	publication.Publisher
	// ready is closed once the start check read the record, or StartWait passed.
	ready     chan struct{}
	readyOnce sync.Once
	// lastErr is why the last publication failed, for the warning when StartWait passes.
	mu      sync.Mutex
	lastErr error
}

func newEtagRecord(s *Server) *etagRecord {
	return &etagRecord{s: s, Publisher: publication.New(), ready: make(chan struct{})}
}

// raised is the counter's OnRaise: the new watermark w is published before its etags are
// handed out, unless the cluster cannot be reached.
func (r *etagRecord) raised(w uint64) {
	raiseTo(&r.target, w)
	if !publication.Closed(r.ready) {
		r.Kick() // the start check publishes it
		return
	}
	r.Soon(r.publish)
}

// wait blocks until the start check is done (at most StartWait after Start) or ctx ends. Once
// it is done, as for every call after the node's first seconds, it only reads ready: no select
// over the call's context as well.
func (r *etagRecord) wait(ctx context.Context) error {
	select {
	case <-r.ready:
		return nil
	default:
	}
	select {
	case <-r.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run reads the record at start, then publishes watermarks the raises could not and skips the
// counter past a record above its watermark, until ctx ends.
//
// The start check always reads the record, even when the file's watermark is 0 and there is
// nothing to publish: a copy of the file made before the node's first server-side ID holds 0,
// and only the record says how far the node went since.
func (r *etagRecord) run(ctx context.Context) {
	began := time.Now()
	timer := time.AfterFunc(publication.StartWait, func() {
		r.readyOnce.Do(func() {
			r.s.log.Warn("server-side IDs start without the cluster's etag record: no leader answered; "+
				"if this node's etag file is an older copy, IDs it hands out before a leader answers may repeat",
				"waited", publication.StartWait, "last_error", r.failure())
			close(r.ready)
		})
	})
	defer timer.Stop()
	raiseTo(&r.target, r.s.etags.Watermark())
	backoff := publication.FirstBackoff
	read, done := false, false // the record was read since start; the start check is over
	for ctx.Err() == nil {
		err := r.skipToRecord()
		if err == nil && read && r.target.Load() <= r.published.Load() {
			if !done {
				done = true
				r.checked(timer, began)
			}
			r.Idle(ctx)
			continue
		}
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = r.publish(pctx)
			cancel()
		}
		if err == nil {
			read = true
			backoff = publication.FirstBackoff
			continue
		}
		r.mu.Lock()
		r.lastErr = err
		r.mu.Unlock()
		r.s.log.Debug("publishing the etag watermark", "err", err)
		backoff = publication.BackOff(ctx, backoff)
	}
}

// checked ends the start check once the record was read: server-side IDs may go out. When
// StartWait passed first (they went out with a warning), it says the record came after all.
func (r *etagRecord) checked(timer *time.Timer, began time.Time) {
	timer.Stop()
	late := true
	r.readyOnce.Do(func() {
		late = false
		r.s.log.Debug("read the cluster's etag record of this node", "record", r.published.Load(), "file", r.s.etags.Watermark())
		close(r.ready)
	})
	if late {
		r.s.log.Info("read the cluster's etag record of this node after all", "after", time.Since(began).Round(time.Millisecond),
			"record", r.published.Load(), "file", r.s.etags.Watermark())
	}
}

// failure is why the last publication failed, or nil.
func (r *etagRecord) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr
}

// skipToRecord skips the counter past the cluster's record when the record is above its
// watermark: the etag file went back to an older copy. It must not run under the counter's
// lock, as raised does, because SkipThrough takes that lock.
func (r *etagRecord) skipToRecord() error {
	rec := r.published.Load()
	if rec <= r.s.etags.Watermark() {
		return nil
	}
	r.s.log.Warn("the etag file is older than the cluster's record of this node: skipping to the record",
		"file", r.s.etags.Watermark(), "record", rec)
	return r.s.etags.SkipThrough(rec)
}

// publish records the target in the cluster. A record above the counter's watermark is left
// for run to skip to.
func (r *etagRecord) publish(ctx context.Context) error {
	w := r.target.Load()
	res, err := r.s.publishReservations(ctx, &raftv1.LocalReservations{Etag: w})
	if r.Outcome(err) != nil {
		return err
	}
	raiseTo(&r.published, res.Etag)
	if res.Etag > w {
		r.Kick()
	}
	return nil
}

// raiseTo sets v to max(v, w).
func raiseTo(v *atomic.Uint64, w uint64) {
	for {
		cur := v.Load()
		if w <= cur || v.CompareAndSwap(cur, w) {
			return
		}
	}
}
