//go:build linux

package e2etest

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/poll"
)

// allStopped tells a running process from a stopped one, and a stop is seen only once it has
// reached the process, not when kill returns.
func TestAllStoppedSeesTheStop(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Process.Kill(); _ = busy.Wait() })
	if err := allStopped(busy.Process.Pid); err == nil {
		t.Fatal("a busy process taken for stopped")
	}
	if err := busy.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the busy process stopped", 10*time.Second, time.Millisecond, func() error {
		return allStopped(busy.Process.Pid)
	})
	if err := busy.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the busy process running again", 10*time.Second, time.Millisecond, func() error {
		if allStopped(busy.Process.Pid) == nil {
			return errors.New("still stopped")
		}
		return nil
	})
}
