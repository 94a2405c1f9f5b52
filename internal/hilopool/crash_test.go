package hilopool

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/crashtest"
)

const (
	helperEnv      = "HILOPOOL_CRASH_HELPER_FILE" // pools file for the child
	helperMaxGrant = 13                           // the child asks for 1..13 numbers
	helperMaxCount = 200_000                      // the child stops on its own after this many grants
	helperMaxTime  = time.Minute                  // or after this long
)

// TestHelperProcess is not a test: it is the child of TestKill9WhileGranting. It grants from
// the users pool in a loop and prints each range with one unbuffered write after Grant
// returns, so every line the parent reads is a range the child had granted.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestKill9WhileGranting")
	}
	s, err := Open(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
		os.Exit(2)
	}
	deadline := time.Now().Add(helperMaxTime)
	for i := int64(0); i < helperMaxCount && time.Now().Before(deadline); i++ {
		low, high, ok, err := s.Grant(users, "helper", 1+i%helperMaxGrant, 1, 0)
		if err != nil || !ok {
			fmt.Fprintf(os.Stderr, "helper: grant %d: ok %v, err %v\n", i, ok, err)
			os.Exit(2)
		}
		if _, err := fmt.Fprintf(os.Stdout, "%d %d\n", low, high); err != nil {
			os.Exit(3)
		}
	}
	os.Exit(0) // never let the testing package print PASS on our stdout
}

// TestKill9WhileGranting SIGKILLs a child in the middle of granting, several times over the
// same pools file, and checks after each kill that no range the child printed is still in the
// pool, that a new grant overlaps none of them, and that the kill lost at most the one range
// that was granted but not yet printed.
func TestKill9WhileGranting(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx := crashtest.Context(t, 2*time.Minute)

	path := poolsPath(t)
	s := mustOpen(t, path)
	// Small segments first, so the grants cross segment ends.
	mustAdd(t, s, users, 1, 2000)
	mustAdd(t, s, users, 3001, 6000)
	mustAdd(t, s, users, 10_001, 1_000_000)
	added := s.Remaining(users)

	var granted []segment // by the children and by the parent
	for round := range 3 {
		printed := runAndKill(ctx, t, path, 300+round*200) // vary where the kill lands
		granted = append(granted, printed...)
		checkDisjoint(t, granted)

		reopened := mustOpen(t, path)
		pool := segmentsOf(reopened, users)
		for _, g := range printed {
			for _, p := range pool {
				if g.overlaps(p) {
					t.Fatalf("round %d: range %v printed by the killed child is still in the pool (%v)", round, g, p)
				}
			}
		}
		var n int64
		for _, g := range granted {
			n += g.size()
		}
		if lost := added - reopened.Remaining(users) - n; lost < 0 || lost > helperMaxGrant*int64(round+1) {
			t.Fatalf("round %d: %d numbers neither in the pool nor printed; at most one range (%d) per kill may be lost",
				round, lost, helperMaxGrant)
		}
		granted = append(granted, mustGrant(t, reopened, users, 50, 0))
		checkDisjoint(t, granted)
		t.Logf("round %d: the child printed %d ranges, up to %v", round, len(printed), printed[len(printed)-1])
	}
}

// runAndKill starts the helper, reads at least want ranges, kills it with SIGKILL, reads what
// it had already written, and returns every range it printed.
func runAndKill(ctx context.Context, t *testing.T, path string, want int) []segment {
	t.Helper()
	var printed []segment
	crashtest.RunAndKill(ctx, t, "TestHelperProcess", []string{helperEnv + "=" + path}, want, func(line string) error {
		var g segment
		if _, err := fmt.Sscanf(line, "%d %d", &g.Low, &g.High); err != nil {
			return fmt.Errorf("child printed %q: %w", line, err)
		}
		if n := len(printed); n > 0 && g.Low <= printed[n-1].High {
			return fmt.Errorf("child granted %v after %v: not increasing", g, printed[n-1])
		}
		printed = append(printed, g)
		return nil
	})
	return printed
}
