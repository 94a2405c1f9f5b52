package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/poll"
)

// A caller that arrives while a probe is under way waits for the next probe: the one under way
// may have been answered before what the caller must see was committed.
func TestSharedProbeNeverHandsOutAnOlderAnswer(t *testing.T) {
	var p sharedProbe
	started := make(chan uint64, 4)
	release := make(chan struct{}, 4)
	var n uint64
	probe := func(context.Context) (uint64, bool) {
		n++ // probes run one at a time
		started <- n
		<-release
		return n, true
	}
	type answer struct{ index uint64 }
	first := make(chan answer, 1)
	go func() { i, _ := p.get(context.Background(), probe); first <- answer{i} }()
	if got := <-started; got != 1 {
		t.Fatalf("first probe is %d", got)
	}
	later := make(chan answer, 1)
	go func() { i, _ := p.get(context.Background(), probe); later <- answer{i} }()
	waitGathered(t, &p)
	release <- struct{}{}
	if a := <-first; a.index != 1 {
		t.Fatalf("first caller got probe %d, want 1", a.index)
	}
	if got := <-started; got != 2 {
		t.Fatalf("second probe is %d", got)
	}
	release <- struct{}{}
	if a := <-later; a.index != 2 {
		t.Errorf("a caller that arrived during probe 1 got probe %d, want 2", a.index)
	}
}

// waitGathered waits, bounded, until a caller has gathered behind the running probe.
func waitGathered(t *testing.T, p *sharedProbe) {
	t.Helper()
	poll.Until(t, "a caller gathers behind the running probe", 5*time.Second, time.Millisecond, func() error {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.next == nil {
			return errors.New("none yet")
		}
		return nil
	})
}
