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
		low, high, ok, err := s.Grant(users, 7, 1, 0)
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
	first := mustGrant(t, s, users, 10, 0) // 1..10
	mustGrant(t, s, users, 10, 0)          // 11..20, newer
	mustGrant(t, s, Key{"default", "orders"}, 10, 0)
	before := readFile(t, path)
	for _, c := range []struct {
		key       Key
		end, last int64
		why       string
	}{
		{users, first.High, 5, "not the newest grant"},
		{users, 19, 15, "end is not the newest grant's high"},
		{users, 21, 15, "end is above the newest grant"},
		{users, 20, 9, "last below the newest grant's low-1"},
		{users, 20, 21, "last above end"},
		{Key{"default", "nobody"}, 20, 15, "no such pool"},
		{Key{"other", "users"}, 20, 15, "no such pool"},
	} {
		if mustReturn(t, s, c.key, c.end, c.last) {
			t.Errorf("Return(%v, %d, %d) accepted, want refused: %s", c.key, c.end, c.last, c.why)
		}
	}
	if got := s.Remaining(users); got != 80 {
		t.Fatalf("Remaining = %d after refused returns, want 80", got)
	}
	if after := readFile(t, path); after != before {
		t.Fatalf("refused returns rewrote the file:\n%s\nwas:\n%s", after, before)
	}
	// The newest grant's tail is still returnable, tag folded like everywhere else.
	if !mustReturn(t, s, Key{"default", "USERS"}, 20, 15) {
		t.Fatal("Return of the newest grant's tail 16..20 refused")
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

func TestReturnShrinksTheNewestGrant(t *testing.T) {
	s := mustOpen(t, poolsPath(t))
	mustAdd(t, s, users, 1, 100)
	mustGrant(t, s, users, 10, 0) // 1..10
	if !mustReturn(t, s, users, 10, 6) {
		t.Fatal("Return of 7..10 refused")
	}
	// The newest grant is now 1..6: its old end is gone, its new end returns once more.
	if mustReturn(t, s, users, 10, 3) {
		t.Fatal("a second Return with the old end accepted: 7..10 would be in the pool twice")
	}
	if !mustReturn(t, s, users, 6, 3) {
		t.Fatal("Return of 4..6, the shrunk grant's tail, refused")
	}
	wantSegments(t, s, users, segment{4, 100})
}

func TestReturnOfAWholeGrantOrOfNothing(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 100)
	mustGrant(t, s, users, 10, 0) // 1..10
	if !mustReturn(t, s, users, 10, 10) {
		t.Fatal("Return of nothing (last == end) refused")
	}
	wantSegments(t, s, users, segment{11, 100})
	if !mustReturn(t, s, users, 10, 0) {
		t.Fatal("Return of the whole grant 1..10 refused")
	}
	wantSegments(t, s, users, segment{1, 100})
	if mustReturn(t, s, users, 0, 0) || mustReturn(t, s, users, 10, 0) {
		t.Fatal("Return accepted after the whole grant came back")
	}
	wantSegments(t, mustOpen(t, path), users, segment{1, 100})
}
