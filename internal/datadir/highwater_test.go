package datadir

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// FollowHighWater moves the recorded index while the node runs, as far as the index it is
// given, and stops with its context.
func TestFollowHighWater(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var index atomic.Uint64
	index.Store(42)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		m.FollowHighWater(ctx, time.Millisecond, index.Load, func(err error) { t.Error(err) })
	})
	deadline := time.Now().Add(10 * time.Second)
	for m.LogIndex() < 42 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	reopened, err := Open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := reopened.LogIndex(); got != 42 {
		t.Fatalf("the manifest on disk records index %d, want 42", got)
	}
}
