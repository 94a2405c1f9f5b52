package main

import (
	"os/exec"
	"testing"
)

// TestExitStatusIsTheCommandsOwn checks that run's status is go test's as a shell reports it:
// its exit code, or 128 and the signal that killed it.
func TestExitStatusIsTheCommandsOwn(t *testing.T) {
	for _, c := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 1", 1},
		{"exit 2", 2},
		{"kill -9 $$", 128 + 9},
	} {
		if got := exitStatus(exec.Command("sh", "-c", c.script).Run()); got != c.want {
			t.Errorf("sh -c %q: status %d, want %d", c.script, got, c.want)
		}
	}
}
