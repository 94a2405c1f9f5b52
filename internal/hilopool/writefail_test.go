package hilopool

import (
	"errors"
	"os"
	"testing"
)

// failWrites makes every write of s fail, as a full or broken disk would. Running as root,
// a read-only directory does not stop writes, so the test replaces the write function.
func failWrites(s *Store) {
	s.write = func(string, []byte, os.FileMode) error { return errors.New("injected: no space left on device") }
}

func TestAFailedWriteChangesNothing(t *testing.T) {
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 100)
	mustAdd(t, s, users, 201, 300)
	mustGrant(t, s, users, 10, 0) // 1..10
	before, onDisk := encoded(t, s), readFile(t, path)

	failWrites(s)
	if low, high, ok, err := s.Grant(users, "g", 10, 1, 0); err == nil || ok {
		t.Fatalf("Grant with a failing disk = %d..%d, ok %v, err %v; want an error and no range", low, high, ok, err)
	}
	if _, _, ok, err := s.Grant(users, "g", 10, 1, 1000); err != nil || ok {
		t.Fatalf("Grant above the pool with a failing disk: ok %v, err %v; want nothing, no write to fail", ok, err)
	}
	if err := s.Add(users, 401, 500); err == nil {
		t.Fatal("Add with a failing disk succeeded")
	}
	if ok, err := s.Return(users, idOf(s, users, 10), 10, 5); err == nil || ok {
		t.Fatalf("Return with a failing disk: ok %v, err %v; want an error", ok, err)
	}
	if err := s.Drop(); err == nil {
		t.Fatal("Drop with a failing disk succeeded")
	}
	if after := encoded(t, s); after != before {
		t.Fatalf("failed writes changed the store:\n%s\nwant\n%s", after, before)
	}
	if after := readFile(t, path); after != onDisk {
		t.Fatal("failed writes changed the file")
	}

	// With the disk back, the numbers the failed grant would have taken are granted now, once,
	// and the newest grant is still 1..10.
	s.write = mustOpen(t, path).write
	if !mustReturn(t, s, users, 10, 5) {
		t.Fatal("Return of 6..10 refused after the failed writes")
	}
	if g := mustGrant(t, s, users, 10, 0); g != (segment{6, 15}) {
		t.Fatalf("Grant = %v, want 6..15", g)
	}
}
