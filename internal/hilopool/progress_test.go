package hilopool

import "testing"

// RunEnd finds where the pool's numbers after a grant stop; DropThrough takes every number at
// or below a mark out of the pool, durably, the newest grant with it; Forget drops a pool.
func TestProgress(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 100)
	mustAdd(t, s, users, 201, 300)
	g := mustGrant(t, s, users, 10, 0)
	if end := s.RunEnd(users, g.High); end != 100 {
		t.Fatalf("RunEnd after %v = %d, want 100", g, end)
	}
	if end := s.RunEnd(Key{Database: "default", Tag: "USERS"}, 150); end != 150 {
		t.Fatalf("RunEnd(150) = %d, want 150: no segment starts at 151", end)
	}
	if err := s.DropThrough(users, 220); err != nil {
		t.Fatal(err)
	}
	wantSegments(t, s, users, segment{221, 300})
	if mustReturn(t, s, users, g.High, g.Low) {
		t.Fatal("a grant at or below the mark could still be returned into the pool")
	}
	reopened := mustOpen(t, path)
	wantSegments(t, reopened, users, segment{221, 300})
	if err := reopened.Forget(users); err != nil {
		t.Fatal(err)
	}
	if got := mustOpen(t, path).Remaining(users); got != 0 {
		t.Fatalf("a forgotten pool still holds %d numbers on disk", got)
	}
}
