// Package stall measures how long a test process went without running. A goroutine asks to
// wake every interval and notes how much later than asked it woke: when the machine gives
// the process no CPU (a loaded CI machine, the race detector beside Docker suites), or the
// process's own goroutines crowd it out, its timers fire late, and so do Raft's.
//
// A test of a timing property on real timers (a leader keeps its lease at 90 ms round trips)
// checks what the nodes do while they run on time; when the process stalled for longer than
// the property's own time scale, a lost lease says nothing about the timing, and the test can
// tell the two apart (Watch.Longest) instead of widening its bounds.
package stall

import (
	"sync"
	"testing"
	"time"
)

// Watch notes the longest stall of the process since Start.
type Watch struct {
	mu      sync.Mutex
	longest time.Duration // how much later than asked a wake-up came, at most
	at      time.Time     // when that wake-up came
}

// Start watches the process, waking every every, until the test ends.
func Start(tb testing.TB, every time.Duration) *Watch {
	w := &Watch{}
	done := make(chan struct{})
	stopped := make(chan struct{})
	started := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		last := time.Now()
		close(started)
		for {
			select {
			case <-done:
				return
			case <-t.C:
				// The time between two wake-ups, not the ticker's time: in a stalled process the
				// runtime fires its timers late too, and a ticker drops the ticks nobody took.
				now := time.Now()
				w.note(now, now.Sub(last)-every)
				last = now
			}
		}
	}()
	tb.Cleanup(func() {
		close(done)
		<-stopped
	})
	// Watching from here on: a stall before the goroutine first read the clock would go unseen.
	<-started
	return w
}

func (w *Watch) note(now time.Time, late time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if late > w.longest {
		w.longest, w.at = late, now
	}
}

// Longest is the longest stall seen so far and when it ended.
func (w *Watch) Longest() (time.Duration, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.longest, w.at
}
