package hilopool

import "testing"

func TestReturnedTailIsGrantedAgainExactlyOnce(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 100)
	if g := mustGrant(t, s, users, 10, 0); g != (segment{1, 10}) {
		t.Fatalf("Grant = %v, want 1..10", g)
	}
	if !mustReturn(t, s, users, 10, 4) {
		t.Fatal("Return of the newest grant's tail 5..10 refused")
	}
	if got := s.Remaining(users); got != 96 {
		t.Fatalf("Remaining = %d after returning 6 numbers, want 96", got)
	}
	kept := []segment{{1, 4}}
	if g := mustGrant(t, s, users, 10, 0); g != (segment{5, 14}) {
		t.Fatalf("Grant after Return = %v, want 5..14 (the returned tail first)", g)
	} else {
		kept = append(kept, g)
	}
	for {
		low, high, ok, err := s.Grant(users, "g", 7, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		kept = append(kept, segment{low, high})
	}
	// Every number of 1..100 went out exactly once.
	checkDisjoint(t, kept)
	var n int64
	for _, g := range kept {
		n += g.size()
	}
	if n != 100 {
		t.Fatalf("granted %d numbers of 1..100, want each once: %v", n, kept)
	}
}

func TestReturnRefusesAllButTheNewestGrantsTail(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 100)
	mustAdd(t, s, Key{"default", "orders"}, 1, 100)
	first := mustGrant(t, s, users, 10, 0)  // 1..10
	newest := mustGrant(t, s, users, 9, 11) // 12..20: not right after 1..10, so 1..10 is done for; 11 stays
	mustGrant(t, s, Key{"default", "orders"}, 10, 0)
	firstID, newestID := idOf(s, users, first.High), idOf(s, users, newest.High)
	before := readFile(t, path)
	for _, c := range []struct {
		key       Key
		id        string
		end, last int64
		why       string
	}{
		{users, firstID, first.High, 5, "not the newest grant"},
		{users, newestID, 19, 15, "end is not the newest grant's high"},
		{users, newestID, 21, 15, "end is above the newest grant"},
		{users, newestID, 20, 10, "last below the newest grant's low-1"},
		{users, newestID, 20, 21, "last above end"},
		{users, "", 20, 15, "no grant id"},
		{users, "someone-else", 20, 15, "another grant id"},
		{Key{"default", "nobody"}, newestID, 20, 15, "no such pool"},
		{Key{"other", "users"}, newestID, 20, 15, "no such pool"},
	} {
		if ok, err := s.Return(c.key, c.id, c.end, c.last); ok {
			t.Errorf("Return(%v, %q, %d, %d) accepted (err %v), want refused: %s", c.key, c.id, c.end, c.last, err, c.why)
		}
	}
	if got := s.Remaining(users); got != 81 {
		t.Fatalf("Remaining = %d after refused returns, want 81", got)
	}
	if after := readFile(t, path); after != before {
		t.Fatalf("refused returns rewrote the file:\n%s\nwas:\n%s", after, before)
	}
	// The newest grant's tail is still returnable, tag folded like everywhere else.
	if ok, err := s.Return(Key{"default", "USERS"}, newestID, 20, 15); err != nil || !ok {
		t.Fatalf("Return of the newest grant's tail 16..20 = %v, %v; want it taken back", ok, err)
	}
}

func TestReturnAfterAnotherGrantIsRefused(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 100)
	g := mustGrant(t, s, users, 10, 0)
	mustGrant(t, s, users, 1, 0)
	if mustReturn(t, s, users, g.High, g.Low) {
		t.Fatalf("Return of %v's tail accepted after a newer grant", g)
	}
	if got := s.Remaining(users); got != 89 {
		t.Fatalf("Remaining = %d, want 89", got)
	}
}

func TestAGrantReturnsOnce(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 100)
	mustGrant(t, s, users, 10, 0) // 1..10
	if !mustReturn(t, s, users, 10, 6) {
		t.Fatal("Return of 7..10 refused")
	}
	// 1..6 is still in use: nothing more of the grant comes back, by its old end or its new.
	id := idOf(s, users, 10)
	for _, end := range []int64{10, 6} {
		if ok, err := s.Return(users, id, end, 3); ok {
			t.Fatalf("a second Return(end %d, last 3) accepted (err %v): numbers would be granted twice", end, err)
		}
	}
	wantSegments(t, s, users, segment{7, 100})
}

func TestReturnOfAWholeGrantOrOfNothing(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 100)
	mustGrant(t, s, users, 10, 0) // 1..10
	if !mustReturn(t, s, users, 10, 10) {
		t.Fatal("Return of nothing (last == end) refused")
	}
	if mustReturn(t, s, users, 10, 0) {
		t.Fatal("Return of the whole grant accepted after its return of nothing")
	}
	wantSegments(t, s, users, segment{11, 100})
	mustGrant(t, s, users, 10, 10) // 11..20
	if !mustReturn(t, s, users, 20, 10) {
		t.Fatal("Return of the whole grant 11..20 refused")
	}
	wantSegments(t, s, users, segment{11, 100})
	if mustReturn(t, s, users, 20, 10) {
		t.Fatal("Return accepted after the whole grant came back")
	}
	wantSegments(t, mustOpen(t, path), users, segment{11, 100})
}

// A client's current range and the one it prefetched right after it both come back, newest
// first, as the Go client's Close gives them: the pool is then as if neither tail was granted.
func TestReturnOfAPrefetchedRangeThenOfTheOneBelow(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 100)
	cur := mustGrant(t, s, users, 10, 0)  // 1..10
	next := mustGrant(t, s, users, 20, 0) // 11..30, right after it
	if !mustReturn(t, s, users, next.High, next.Low-1) {
		t.Fatal("Return of the whole prefetched range refused")
	}
	s = mustOpen(t, path) // the grant below survives a restart
	if !mustReturn(t, s, users, cur.High, 2) {
		t.Fatal("Return of the current range's tail refused after the newer one came back whole")
	}
	wantSegments(t, s, users, segment{3, 100})

	// A range below that is not right under the newest cannot come back after it.
	a := mustGrant(t, s, users, 5, 0)  // 3..7
	b := mustGrant(t, s, users, 5, 10) // 11..15
	if !mustReturn(t, s, users, b.High, b.Low-1) || mustReturn(t, s, users, a.High, a.Low-1) {
		t.Fatalf("returns of %v then %v (not contiguous): want the first only", b, a)
	}
}
