package hilopool

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"sync"
	"testing"
	"time"
)

var errNoQuorum = errors.New("no quorum")

// cutOffGranter is a Granter over s whose reservations fail, as on a node cut off from the
// majority.
func cutOffGranter(s *Store) *Granter {
	return NewGranter(GranterConfig{Pools: s, Logger: slog.Default(), StoreError: func(err error) error { return err },
		Reserve: func(context.Context, Key, int64) (int64, int64, error) { return 0, 0, errNoQuorum }})
}

// A node cut off from the majority holds numbers below a long-running client's last_max (the
// leader kept reserving above them). It grants from them rather than refusing the client, and
// one call neither takes nor drops the whole pool: the rest serves the next calls.
func TestACutOffPoolGrantsBelowLastMaxAndKeepsTheRest(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 2049, 3072)
	g := cutOffGranter(s)
	var ranges []segment
	for s.Remaining(users) > 0 {
		before := s.Remaining(users)
		low, high, ok, err := g.Grant(t.Context(), users, Request{ID: "g", Capacity: 64, LastMax: 3424}, time.Now())
		if err != nil || !ok {
			t.Fatalf("with %d numbers left below last_max 3424, Grant = %d..%d ok %v err %v; want a range", before, low, high, ok, err)
		}
		if low < 2049 || high > 3072 || s.Remaining(users) != before-(high-low+1) {
			t.Fatalf("Grant = %d..%d from a pool of %d numbers in 2049..3072, which now holds %d; want a range of the pool, the rest kept",
				low, high, before, s.Remaining(users))
		}
		ranges = append(ranges, segment{low, high})
		if len(ranges) > 1024 {
			t.Fatal("more than 1024 ranges from a pool of 1024 numbers")
		}
	}
	checkDisjoint(t, ranges)
}

// A caller that asks for a huge range while the node is cut off gets a share of the pool, never
// all of it: the node's other clients keep going on the rest.
func TestACutOffPoolCapsAHugeRange(t *testing.T) {
	for _, capacity := range []int64{1024, 1 << 20} {
		s := mustOpen(t, poolsPath(t))
		mustAdd(t, s, users, 2049, 3072)
		g := cutOffGranter(s)
		low, high, ok, err := g.Grant(t.Context(), users, Request{ID: "g", Capacity: capacity}, time.Now())
		if err != nil || !ok {
			t.Fatalf("capacity %d: Grant = ok %v err %v; want a range", capacity, ok, err)
		}
		if left := s.Remaining(users); left < 1024/2 {
			t.Fatalf("capacity %d: one grant without a quorum took %d..%d and left %d of 1024; want at least half left", capacity, low, high, left)
		}
	}
}

// With a quorum a range still lies above the caller's last_max: the node reserves above it,
// and keeps the numbers below for a cut-off.
func TestAPoolWithAQuorumReservesAboveLastMaxAndKeepsItsReserve(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 2049, 3072)
	next := int64(3425)
	g := NewGranter(GranterConfig{Pools: s, Logger: slog.Default(), StoreError: func(err error) error { return err },
		Reserve: func(_ context.Context, _ Key, n int64) (int64, int64, error) {
			low := next
			next += n
			return low, next - 1, nil
		}})
	low, high, ok, err := g.Grant(t.Context(), users, Request{ID: "g", Capacity: 64, LastMax: 3424}, time.Now())
	if err != nil || !ok || low != 3425 || high != 3488 {
		t.Fatalf("Grant above last_max 3424 = %d..%d ok %v err %v; want 3425..3488 from a new reservation", low, high, ok, err)
	}
	if got := s.RemainingAbove(users, 0) - s.RemainingAbove(users, 3424); got != 1024 {
		t.Fatalf("the pool holds %d numbers below last_max; want the 1024 of 2049..3072 kept", got)
	}
}

// fakeRecord is the cluster's record of one node's pools, in memory: marks only rise.
type fakeRecord struct {
	mu    sync.Mutex
	marks map[Key]int64
}

func (r *fakeRecord) Publish(_ context.Context, marks map[Key]int64) (map[Key]int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, v := range marks {
		r.marks[k] = max(r.marks[k], v)
	}
	return maps.Clone(r.marks), nil
}

func (r *fakeRecord) Unseal(context.Context, []byte) (map[Key]int64, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.marks), false, nil
}

func (r *fakeRecord) Seal(context.Context, []byte) error { return nil }
func (r *fakeRecord) Reserved(Key) bool                  { return true }
func (r *fakeRecord) Fold(key Key) Key                   { return key.folded() }

// startMarked opens the pools at path behind rec and waits for their start check.
func startMarked(t *testing.T, path string, rec Record) (*Marked, *Store) {
	t.Helper()
	s := mustOpen(t, path)
	m := NewMarked(s, rec, slog.Default())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-m.checked:
	case <-time.After(10 * time.Second):
		t.Fatal("the pools' start check did not end within 10 s")
	}
	return m, s
}

// A node cut off grants from a stretch of its pool below one it granted from before: the mark
// of the higher grant covers the lower one, so an older copy of the pools file put back (or a
// crash) costs gaps, never a number granted twice.
func TestAGrantBelowTheMarkIsCoveredByIt(t *testing.T) {
	path := poolsPath(t)
	rec := &fakeRecord{marks: map[Key]int64{}}
	m, s := startMarked(t, path, rec)
	mustAdd(t, s, users, 101, 200) // the reserve, below the callers' last_max
	mustAdd(t, s, users, 501, 600)
	older := readFile(t, path)

	var granted []segment
	for _, above := range []int64{450, 3424} { // above the reserve: 501..532; then cut off, from below
		low, high, ok, err := m.Grant(users, "g", 32, 1, above)
		if above == 3424 && !ok && err == nil {
			low, high, ok, err = m.Grant(users, "g", 32, 1, 0)
		}
		if err != nil || !ok {
			t.Fatalf("Grant above %d: ok %v, err %v", above, ok, err)
		}
		granted = append(granted, segment{low, high})
	}
	if granted[1].High > granted[0].Low {
		t.Fatalf("grants %v: want the second from the lower stretch", granted)
	}
	if err := os.WriteFile(path, []byte(older), 0o644); err != nil {
		t.Fatal(err)
	}
	_, restarted := startMarked(t, path, rec)
	for _, g := range granted {
		for _, p := range segmentsOf(restarted, users) {
			if p.overlaps(g) {
				t.Fatalf("after an older pools file was put back, the pool %v holds %v, granted before", segmentsOf(restarted, users), g)
			}
		}
	}
}
