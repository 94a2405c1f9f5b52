package cluster

import (
	"sync"
	"time"
)

// stallTick is how often a stallMeter asks to be woken.
const stallTick = 5 * time.Millisecond

// A stallMeter is a control for a test that holds a cluster to Raft's real timers: a goroutine
// of the test's process sleeps stallTick again and again and keeps the latest it woke. The
// nodes run on the same machine at the same priority, so a wake-up later than a leader's lease
// says the machine (a CI run's other steps, say) held every process for that long, and an
// election then was the machine's, not the timing's.
type stallMeter struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	max  time.Duration
}

func startStallMeter() *stallMeter {
	m := &stallMeter{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTimer(stallTick)
		defer t.Stop()
		for {
			asked := time.Now()
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.mu.Lock()
				m.max = max(m.max, time.Since(asked)-stallTick)
				m.mu.Unlock()
				t.Reset(stallTick)
			}
		}
	}()
	return m
}

// Longest is the latest wake-up so far.
func (m *stallMeter) Longest() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.max
}

// Stop ends the meter and returns the latest wake-up it saw.
func (m *stallMeter) Stop() time.Duration {
	close(m.stop)
	<-m.done
	return m.Longest()
}
