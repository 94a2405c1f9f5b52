package etag

import (
	"path/filepath"
	"testing"
)

// OnRaise hears each new watermark before an etag under it is handed out, and SkipThrough
// moves the counter and its file past a record without ever going back.
func TestOnRaiseAndSkipThrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c := open(t, path, 10)
	var heard []uint64
	c.OnRaise(func(w uint64) {
		if c.Watermark() >= w {
			t.Errorf("told of watermark %d after it was in use", w)
		}
		heard = append(heard, w)
	})
	if first := next(t, c, 1); first != 1 {
		t.Fatalf("first etag %d, want 1", first)
	}
	if err := c.SkipThrough(500); err != nil {
		t.Fatal(err)
	}
	if first := next(t, c, 1); first != 501 {
		t.Fatalf("after SkipThrough(500) the next etag is %d, want 501", first)
	}
	if err := c.SkipThrough(7); err != nil { // below: nothing changes
		t.Fatal(err)
	}
	if first := next(t, c, 1); first != 502 {
		t.Fatalf("SkipThrough below the counter moved it: next %d, want 502", first)
	}
	if w := fileWatermark(t, path); w < 502 {
		t.Fatalf("file watermark %d is below the etags handed out", w)
	}
	if len(heard) != 2 || heard[0] != 11 || heard[1] != 510 {
		t.Fatalf("OnRaise heard %v, want [11 510]", heard)
	}
}
