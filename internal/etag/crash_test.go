package etag

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/crashtest"
)

const (
	helperEnv     = "ETAG_CRASH_HELPER_FILE" // watermark file for the child
	helperReserve = 1000
	helperMaxIDs  = 5_000_000 // the child stops on its own after this many
)

// TestHelperProcess is not a test: it is the child of TestCrashKill9. It
// hands out etags in a tight loop and prints each one on its own line with
// one unbuffered write, so every line the parent reads is an etag the child
// had already handed out.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestCrashKill9")
	}
	c, err := Open(path, helperReserve)
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
		os.Exit(2)
	}
	buf := make([]byte, 0, 32)
	for range helperMaxIDs {
		e, err := c.Next(1)
		if err != nil {
			fmt.Fprintf(os.Stderr, "helper: %v\n", err)
			os.Exit(2)
		}
		buf = strconv.AppendUint(buf[:0], e, 10)
		buf = append(buf, '\n')
		if _, err := os.Stdout.Write(buf); err != nil {
			os.Exit(3)
		}
	}
	os.Exit(0) // never let the testing package print PASS on our stdout
}

// TestCrashKill9 runs the helper as a real child process, SIGKILLs it in
// the middle of its stream, restarts it and checks that the first etag after
// the restart is above every etag the killed child printed.
func TestCrashKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const rounds = 6
	ctx := crashtest.Context(t, 2*time.Minute)

	path := filepath.Join(t.TempDir(), "etag")
	var max uint64 // highest etag printed by any child so far
	for round := range rounds {
		want := 3000 + round*1500 // vary where in the reservation the kill lands
		first, last, n := runAndKill(ctx, t, path, want)
		if first <= max {
			t.Fatalf("round %d: restarted child handed out %d, but %d was handed out before the kill", round, first, max)
		}
		if round == 0 && first != 1 {
			t.Fatalf("fresh counter started at %d, want 1", first)
		}
		if gap := first - max; round > 0 && gap > 2*helperReserve+2 {
			t.Fatalf("round %d: restart skipped %d etags, more than the reserve explains", round, gap)
		}
		t.Logf("round %d: %d etags %d..%d (skipped %d on restart)", round, n, first, last, first-max-1)
		max = last
	}

	// The parent can open the file the killed children left (lock released by
	// the kernel) and continues above them.
	c := open(t, path, helperReserve)
	if got := next(t, c, 1); got <= max {
		t.Fatalf("after the last kill Next = %d, not above %d", got, max)
	}
}

// runAndKill starts the helper, reads at least want lines, kills it with SIGKILL, reads what
// it had already written, and returns the first and last etag and how many it printed.
func runAndKill(ctx context.Context, t *testing.T, path string, want int) (first, last uint64, n int) {
	t.Helper()
	crashtest.RunAndKill(ctx, t, "TestHelperProcess", []string{helperEnv + "=" + path}, want, func(line string) error {
		e, err := strconv.ParseUint(line, 10, 64)
		if err != nil {
			return fmt.Errorf("child printed %q: %w", line, err)
		}
		if n > 0 && e <= last {
			return fmt.Errorf("child printed %d after %d", e, last)
		}
		if n == 0 {
			first = e
		}
		last = e
		n++
		return nil
	})
	return first, last, n
}
