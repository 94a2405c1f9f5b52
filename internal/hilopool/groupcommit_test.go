package hilopool

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// heldWrites makes s's writes count themselves and the first one wait for release, whose
// argument is that write's result.
func heldWrites(s *Store) (writes func() int, release func(error)) {
	var mu sync.Mutex
	n := 0
	first := make(chan error)
	real := s.write
	s.write = func(path string, data []byte, perm os.FileMode) error {
		mu.Lock()
		n++
		hold := n == 1
		mu.Unlock()
		if hold {
			if err := <-first; err != nil {
				return err
			}
		}
		return real(path, data, perm)
	}
	return func() int { mu.Lock(); defer mu.Unlock(); return n }, func(err error) { first <- err }
}

// waitFor polls cond, bounded: the grants under test change memory before they wait for the disk.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
	}
}

type grantResult struct {
	g   segment
	ok  bool
	err error
}

// grantInBackground starts a grant of want numbers and returns where its result arrives.
func grantInBackground(s *Store, want int64) <-chan grantResult {
	out := make(chan grantResult, 1)
	go func() {
		low, high, ok, err := s.Grant(users, "g", want, want, 0)
		out <- grantResult{segment{low, high}, ok, err}
	}()
	return out
}

func TestGrantsMadeDuringAWriteShareTheNextOne(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 1000)
	writes, release := heldWrites(s)

	first := grantInBackground(s, 10)
	waitFor(t, "the first grant's write", func() bool { return writes() == 1 })
	const n = 20
	var rest []<-chan grantResult
	for range n {
		rest = append(rest, grantInBackground(s, 10))
	}
	waitFor(t, "the other grants to join the next write", func() bool { return s.Remaining(users) == 1000-10*(n+1) })
	select {
	case r := <-first:
		t.Fatalf("the first grant answered %+v before its write ended", r)
	default:
	}
	release(nil)

	ranges := []segment{(<-first).g}
	for _, c := range rest {
		r := <-c
		if r.err != nil || !r.ok {
			t.Fatalf("grant: ok %v, err %v", r.ok, r.err)
		}
		ranges = append(ranges, r.g)
	}
	checkDisjoint(t, ranges)
	if got := writes(); got != 2 {
		t.Fatalf("%d grants took %d writes, want 2: the first, and one for those made during it", n+1, got)
	}
	if got := mustOpen(t, path).Remaining(users); got != 1000-10*(n+1) {
		t.Fatalf("reopened Remaining = %d, want %d", got, 1000-10*(n+1))
	}
}

func TestAFailedWriteFailsTheGrantsMadeOnTopOfIt(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 1000)
	onDisk := readFile(t, path)
	writes, release := heldWrites(s)

	first := grantInBackground(s, 10)
	waitFor(t, "the first grant's write", func() bool { return writes() == 1 })
	second := grantInBackground(s, 10)
	waitFor(t, "the second grant", func() bool { return s.Remaining(users) == 980 })
	release(errors.New("injected: I/O error"))

	for i, c := range []<-chan grantResult{first, second} {
		if r := <-c; r.err == nil || r.ok {
			t.Fatalf("grant %d after a failed write: %+v; want an error and no range", i+1, r)
		}
	}
	if got := s.Remaining(users); got != 1000 {
		t.Fatalf("Remaining = %d after the failed write, want 1000: both grants undone", got)
	}
	if readFile(t, path) != onDisk {
		t.Fatal("the failed write changed the file")
	}
	if g := mustGrant(t, s, users, 10, 0); g != (segment{1, 10}) {
		t.Fatalf("Grant after the disk came back = %v, want 1..10", g)
	}
}
