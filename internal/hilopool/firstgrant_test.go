package hilopool

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// slowLog is a Reserver seam that behaves as the leader's log does when it is slow: a
// reservation waits until release is closed, and one whose caller left before then is still
// committed (the entry is in the log), only its answer is lost.
type slowLog struct {
	release chan struct{}
	entered chan struct{} // a value for every reservation that starts

	mu    sync.Mutex
	next  int64 // the first number of the next reservation
	calls int
}

func newSlowLog() *slowLog {
	return &slowLog{release: make(chan struct{}), entered: make(chan struct{}, 16), next: 1}
}

func (l *slowLog) reserve(ctx context.Context, _ Key, n int64) (int64, int64, error) {
	l.entered <- struct{}{}
	select {
	case <-l.release:
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	low := l.next
	l.next += n
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	return low, l.next - 1, nil
}

// A node's first range of a tag waits for a reservation through the log. When that is slower
// than the caller's attempt timeout, the caller gives up and retries; the reservation it
// started must land in the pool and serve the retry, not be committed unanswered (a gap of a
// whole pool) while the retry reserves again. Otherwise a client that asked one node gets a
// range far above the last one handed out, and a client of several nodes fails over to another
// node's pool, so the range is not the first node's to take back.
func TestARetryIsGrantedFromTheReservationItsGivenUpAttemptStarted(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "pools.json"))
	log := newSlowLog()
	g := NewGranter(GranterConfig{Pools: s, Reserve: log.reserve, Logger: slog.Default(),
		StoreError: func(err error) error { return err }})
	orders := Key{Database: "default", Tag: "orders"}
	grant := func(ctx context.Context, id string) <-chan grantResult {
		out := make(chan grantResult, 1)
		go func() {
			low, high, ok, err := g.Grant(ctx, orders, Request{ID: id, Capacity: 32}, time.Now())
			out <- grantResult{segment{low, high}, ok, err}
		}()
		return out
	}

	attempt, giveUp := context.WithCancel(t.Context())
	first := grant(attempt, "r1")
	<-log.entered
	giveUp() // the client's attempt timeout
	if r := <-first; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("the attempt that gave up got %+v; want its context's error", r)
	}

	retry := grant(t.Context(), "r1")
	close(log.release)
	r := <-retry
	if r.err != nil || !r.ok || r.g != (segment{1, 32}) {
		t.Fatalf("the retry got %+v; want 1..32 from the reservation the first attempt started", r)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if log.calls != 1 {
		t.Fatalf("%d reservations went through the log; want 1 (the retry waits for the first)", log.calls)
	}
}
