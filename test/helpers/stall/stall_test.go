//go:build unix

package stall

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/poll"
)

// A real stall: a child process stops this whole process (SIGSTOP) for 300 ms and lets it go
// on (SIGCONT), as a machine that gives it no CPU would. The watch must see a wake-up at
// least that late.
func TestAStoppedProcessShowsAsAStall(t *testing.T) {
	w := Start(t, 5*time.Millisecond)
	pid := strconv.Itoa(os.Getpid())
	stop := exec.Command("sh", "-c", "kill -STOP "+pid+"; sleep 0.3; kill -CONT "+pid)
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("stopping the process: %v\n%s", err, out)
	}
	poll.Until(t, "a wake-up 300ms late", 10*time.Second, 5*time.Millisecond, func() error {
		if longest, at := w.Longest(); longest < 250*time.Millisecond {
			return fmt.Errorf("longest stall %v at %v", longest, at)
		}
		return nil
	})
}
