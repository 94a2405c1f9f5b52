//go:build unix

package flock

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A second open file of the same path is refused while the first holds the lock, and takes
// it once the first is closed.
func TestTryExclusiveRefusesASecondHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Close() })
		return f
	}
	first, second := open(), open()
	if err := TryExclusive(first); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := TryExclusive(second); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("second lock while the first is held: %v; want EWOULDBLOCK", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := TryExclusive(second); err != nil {
		t.Fatalf("second lock once the first is closed: %v", err)
	}
}
