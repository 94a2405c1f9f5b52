package logbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWritesAllArrive writes from many goroutines while reading (run it with -race)
// and checks that every line arrived whole.
func TestConcurrentWritesAllArrive(t *testing.T) {
	const writers, lines = 8, 200
	var b Buffer
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(&b, "writer %d line %d\n", w, i)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for line := range strings.Lines(b.String()) {
		seen[line] = true
	}
	for w := range writers {
		for i := range lines {
			if l := fmt.Sprintf("writer %d line %d\n", w, i); !seen[l] {
				t.Fatalf("line %q missing", l)
			}
		}
	}
	if len(seen) != writers*lines {
		t.Fatalf("%d distinct lines, want %d", len(seen), writers*lines)
	}
}
