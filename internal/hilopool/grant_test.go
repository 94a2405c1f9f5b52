package hilopool

import (
	"os"
	"strings"
	"testing"
)

func TestGrantsAreDisjointIncreasingAndShorterAtASegmentEnd(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 10)
	mustAdd(t, s, users, 21, 25)
	want := []segment{{1, 4}, {5, 8}, {9, 10}, {21, 24}, {25, 25}}
	remaining := int64(15)
	for _, w := range want {
		if got := mustGrant(t, s, users, 4, 0); got != w {
			t.Fatalf("Grant = %v, want %v", got, w)
		}
		remaining -= w.size()
		if got := s.Remaining(users); got != remaining {
			t.Fatalf("after granting %v Remaining = %d, want %d", w, got, remaining)
		}
	}
	mustNotGrant(t, s, users, 4, 0)
}

func TestGrantHonoursAboveAndKeepsTheNumbersBelow(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 10)
	mustAdd(t, s, users, 21, 30)
	mustAdd(t, s, users, 41, 50)
	if got := mustGrant(t, s, users, 5, 23); got != (segment{24, 28}) {
		t.Fatalf("Grant above 23 = %v, want 24..28", got)
	}
	wantSegments(t, s, users, segment{1, 10}, segment{21, 23}, segment{29, 30}, segment{41, 50})
	if got := mustGrant(t, s, users, 5, 35); got != (segment{41, 45}) {
		t.Fatalf("Grant above 35 = %v, want 41..45", got)
	}
	wantSegments(t, s, users, segment{1, 10}, segment{21, 23}, segment{29, 30}, segment{46, 50})

	// Nothing above 100: no grant, and the numbers below stay, for a caller that may have them
	// (a node cut off grants them rather than refuse).
	before := readFile(t, path)
	mustNotGrant(t, s, users, 5, 100)
	if got := s.Remaining(users); got != 20 {
		t.Fatalf("Remaining = %d after a grant above the pool, want the 20 it held", got)
	}
	if readFile(t, path) != before {
		t.Fatal("a grant above the pool rewrote the file")
	}
	if got := mustGrant(t, s, users, 5, 0); got != (segment{1, 5}) {
		t.Fatalf("Grant above 0 = %v, want 1..5", got)
	}
}

// A pool keeps at most maxSegments stretches of numbers: grants that split segments cannot
// grow its file without end. The lowest stretches leave the pool (gaps).
func TestAPoolKeepsItsHighestSegments(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 10*maxSegments)
	for i := range int64(maxSegments) {
		mustGrant(t, s, users, 1, 10*i+4) // splits the segment at 10i+5
	}
	segs := segmentsOf(s, users)
	if len(segs) != maxSegments || segs[len(segs)-1].High != 10*maxSegments {
		t.Fatalf("pool after %d splitting grants = %v; want its highest %d segments", maxSegments, segs, maxSegments)
	}
	if segs[0].Low <= 5 {
		t.Fatalf("pool = %v; want its lowest segment gone", segs)
	}
}

func TestGrantFoldsTheTag(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, Key{Database: "default", Tag: "Users"}, 1, 10)
	if got := mustGrant(t, s, Key{Database: "default", Tag: "USERS"}, 3, 0); got != (segment{1, 3}) {
		t.Fatalf("Grant = %v, want 1..3", got)
	}
	if got := s.Remaining(users); got != 7 {
		t.Fatalf("Remaining = %d, want 7", got)
	}
	if keys := s.Keys(); len(keys) != 1 || keys[0] != users {
		t.Fatalf("Keys = %v, want [%v]", keys, users)
	}
}

func TestGrantFromAnUnknownPoolWritesNothing(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustNotGrant(t, s, users, 10, 0)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a grant from no pool created %s: %v", path, err)
	}
}

func TestGrantRefusesWantBelowOne(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 10)
	for _, want := range []int64{0, -1} {
		if _, _, ok, err := s.Grant(users, "g", want, 1, 0); err == nil || ok {
			t.Fatalf("Grant of %d numbers: ok %v, err %v; want an error", want, ok, err)
		}
	}
	if got := s.Remaining(users); got != 10 {
		t.Fatalf("Remaining = %d, want 10", got)
	}
}

func TestGrantNearTheLargestNumber(t *testing.T) {
	const maxInt64 = 1<<63 - 1
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, maxInt64-9, maxInt64)
	if got := mustGrant(t, s, users, maxInt64, maxInt64-5); got != (segment{maxInt64 - 4, maxInt64}) {
		t.Fatalf("Grant = %v, want the last 5 numbers", got)
	}
	mustNotGrant(t, s, users, 1, maxInt64)
}

func TestAddMergesTouchingSegments(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 21, 30)
	mustAdd(t, s, users, 1, 10)
	mustAdd(t, s, users, 11, 20)
	wantSegments(t, s, users, segment{1, 30})
	if got := mustGrant(t, s, users, 25, 0); got != (segment{1, 25}) {
		t.Fatalf("Grant = %v, want 1..25 across the merged segments", got)
	}
}

func TestAddRefusesOverlapsAndBadRanges(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 11, 20)
	mustAdd(t, s, users, 31, 40)
	mustGrant(t, s, users, 5, 0) // 11..15 is the newest grant
	for _, c := range []struct {
		key       Key
		low, high int64
		why       string
	}{
		{users, 18, 25, "overlaps"},
		{users, 1, 50, "overlaps"},
		{users, 40, 40, "overlaps"},
		{users, 13, 13, "granted from the pool"},
		{users, 0, 5, "low <= high"},
		{users, 60, 59, "low <= high"},
		{Key{Database: "default"}, 1, 5, "without a database or tag"},
		{Key{Tag: "users"}, 1, 5, "without a database or tag"},
	} {
		err := s.Add(c.key, c.low, c.high)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Add(%v, %d, %d) = %v, want an error saying %q", c.key, c.low, c.high, err, c.why)
		}
	}
	wantSegments(t, s, users, segment{16, 20}, segment{31, 40})
}

func TestKeysAreSorted(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	for i, k := range []Key{{"orders", "b"}, {"default", "Zeta"}, {"default", "alpha"}, {"archive", "x"}} {
		mustAdd(t, s, k, int64(i*10+1), int64(i*10+5))
	}
	want := []Key{{"archive", "x"}, {"default", "alpha"}, {"default", "zeta"}, {"orders", "b"}}
	got := s.Keys()
	if len(got) != len(want) {
		t.Fatalf("Keys = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Keys = %v, want %v", got, want)
		}
	}
}

func TestAnEmptiedPoolStaysListedForRefill(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 3)
	mustGrant(t, s, users, 3, 0)
	if keys := s.Keys(); len(keys) != 1 || keys[0] != users {
		t.Fatalf("Keys = %v after emptying the pool, want [%v]", keys, users)
	}
}

func TestDropForgetsEveryPoolDurably(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 10)
	mustAdd(t, s, Key{"orders", "b"}, 1, 10)
	g := mustGrant(t, s, users, 4, 0)
	if err := s.Drop(); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Store{s, mustOpen(t, path)} {
		if keys := st.Keys(); len(keys) != 0 {
			t.Fatalf("Keys = %v after Drop, want none", keys)
		}
		mustNotGrant(t, st, users, 1, 0)
		if mustReturn(t, st, users, g.High, g.Low) {
			t.Fatal("Return after Drop accepted the tail of a retired pool's grant")
		}
	}
}

func TestGrantOfAWholeRangeSkipsAShortSegment(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 10)
	mustAdd(t, s, users, 21, 40)
	for _, want := range []segment{{1, 8}, {21, 28}} {
		if low, high, ok, err := s.Grant(users, "g", 8, 8, 0); err != nil || !ok || (segment{low, high}) != want {
			t.Fatalf("Grant of 8 whole = %d..%d, ok %v, err %v; want %v", low, high, ok, err, want)
		}
	}
	// 9..10 stayed for a request that takes fewer.
	wantSegments(t, s, users, segment{9, 10}, segment{29, 40})
	onDisk := readFile(t, path)
	if low, high, ok, err := s.Grant(users, "g", 20, 20, 0); err != nil || ok {
		t.Fatalf("Grant of 20 whole from 2+12 numbers = %d..%d, ok %v, err %v; want nothing", low, high, ok, err)
	}
	if readFile(t, path) != onDisk {
		t.Fatal("a grant of nothing rewrote the file")
	}
	if got := mustGrant(t, s, users, 4, 0); got != (segment{9, 10}) {
		t.Fatalf("Grant of up to 4 = %v, want 9..10", got)
	}
	if _, _, ok, err := s.Grant(users, "g", 4, 5, 0); err == nil || ok {
		t.Fatalf("Grant with least > want: ok %v, err %v; want an error", ok, err)
	}
}
