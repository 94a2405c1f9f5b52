package main

import (
	"io"
	"log/slog"
	"runtime/pprof"
	"sync"
	"time"
)

// stopBound is how long a stop (SIGTERM, a fatal error) may take before the process exits
// without finishing it: a state machine apply that does not return holds raft's Shutdown
// for ever, and a supervisor's SIGKILL would leave no word of why.
const stopBound = 10 * time.Second

// exitStuck is the exit status of a node whose stop did not finish within stopBound: what it
// wrote is safe (every write is synced before it counts), but the stop was not clean.
const exitStuck = 4

// shutdownBound exits the process with exitStuck if the stop it was armed for has not
// finished within its bound, after logging what is stuck and every goroutine's stack.
type shutdownBound struct {
	mu    sync.Mutex
	timer *time.Timer
}

// arm starts the clock: stuck says what the stop waits for, exit ends the process.
func (b *shutdownBound) arm(d time.Duration, log *slog.Logger, stacks io.Writer, stuck func() string, exit func(int)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		return
	}
	b.timer = time.AfterFunc(d, func() {
		log.Error("the stop did not finish in time; exiting without a clean stop (what reached the disk is safe); goroutine stacks follow",
			"bound", d, "stuck", stuck(), "exit_status", exitStuck)
		_ = pprof.Lookup("goroutine").WriteTo(stacks, 1)
		exit(exitStuck)
	})
}

// disarm stops the clock: the stop finished.
func (b *shutdownBound) disarm() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
}
