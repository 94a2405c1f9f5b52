//go:build unix

package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A held lock is refused to every other open file, this process's too, until it is let go;
// Lock waits for it and gives up when its context ends.
func TestALockHasOneHolderAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	first, err := TryLock(path)
	if err != nil || first == nil {
		t.Fatalf("TryLock on a free lock: %v, %v", first, err)
	}
	if second, err := TryLock(path); second != nil || err != nil {
		t.Fatalf("TryLock on a held lock: %v, %v; want nil, nil", second, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if f, err := Lock(ctx, path, time.Millisecond); f != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock on a held lock past its deadline: %v, %v", f, err)
	}
	got := make(chan error, 1)
	go func() {
		f, err := Lock(context.Background(), path, time.Millisecond)
		if err == nil {
			err = f.Close()
		}
		got <- err
	}()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("Lock once the holder let go: %v", err)
	}
}
