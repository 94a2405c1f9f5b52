package main

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A stop that does not finish (an apply that never returns) ends the process
// within the bound, with a non-zero status and the log naming what is stuck.
func TestShutdownBoundExitsNamingWhatIsStuck(t *testing.T) {
	var logs bytes.Buffer
	exited := make(chan int, 1)
	var b shutdownBound
	b.arm(50*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)), io.Discard,
		func() string { return "raft entries 7-7 (command types [1])" }, func(code int) { exited <- code })
	select {
	case code := <-exited:
		if code != exitStuck {
			t.Errorf("exit status %d, want %d", code, exitStuck)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the bound did not end the process")
	}
	if !strings.Contains(logs.String(), "raft entries 7-7") {
		t.Errorf("log %q does not name what is stuck", logs.String())
	}
}
