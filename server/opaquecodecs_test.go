package server

import (
	"bytes"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/opaque"
)

// Kept codecs write the forms a fresh codec writes, under contention: every goroutine asks for
// the same collections, spelled either way, under two keys, and each form must be the one a
// codec made for that key and folded name writes. The cache never holds more than its bound,
// however many names callers send.
func TestOpaqueCodecsKeepTheRightCodec(t *testing.T) {
	keyA, keyB := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	want := func(key []byte, name string, v int64) string {
		c, err := opaque.NewIdentityCodec(key, name)
		if err != nil {
			t.Fatal(err)
		}
		form, err := c.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		return form
	}
	settings := []fsm.OpaqueSetting{{Key: keyA}, {Key: keyB}}
	names := []string{"orders", "Orders", "tickets", "TICKETS"}
	expected := map[string]string{}
	for i, s := range settings {
		for _, n := range names {
			expected[fmt.Sprint(i, n)] = want(s.Key, s.Fold(n), 42)
		}
	}
	var c opaqueCodecs
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Go(func() {
			for r := range 50 {
				i := (g + r) % len(settings)
				n := names[(g*7+r)%len(names)]
				codec, err := c.identity(settings[i], n)
				if err != nil {
					errs <- err
					return
				}
				if form, _ := codec.Encode(42); form != expected[fmt.Sprint(i, n)] {
					errs <- fmt.Errorf("key %d, %s: form %s, want %s", i, n, form, expected[fmt.Sprint(i, n)])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Two keys, two folded names: four codecs kept.
	if got := c.kept.Load(); got != 4 {
		t.Errorf("%d codecs kept, want 4 (two keys, two names folded)", got)
	}

	for i := range maxOpaqueCodecs + 10 {
		if _, err := c.identity(settings[0], fmt.Sprintf("c%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	c.codecs.Range(func(any, any) bool { n++; return true })
	if n != maxOpaqueCodecs || c.kept.Load() != maxOpaqueCodecs {
		t.Errorf("%d codecs kept (counted %d), want the bound %d", n, c.kept.Load(), maxOpaqueCodecs)
	}
}

// A database's numeric codec is kept beside its collections' and writes what a fresh numeric
// codec writes, never what a collection's codec would: its tweak names an entry of its own.
func TestOpaqueCodecsKeepTheNumericCodecApart(t *testing.T) {
	setting := fsm.OpaqueSetting{Key: bytes.Repeat([]byte{3}, 32)}
	fresh, err := opaque.NewCodec(setting.Key, []byte(fsm.OpaqueNumericTweak), 0, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fresh.Encode(42)
	if err != nil {
		t.Fatal(err)
	}
	var c opaqueCodecs
	if _, err := c.identity(setting, "orders"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		codec, err := c.numeric(setting)
		if err != nil {
			t.Fatal(err)
		}
		if form, _ := codec.Encode(42); form != want {
			t.Errorf("numeric form of 42 %s, want %s", form, want)
		}
	}
	if got := c.kept.Load(); got != 2 {
		t.Errorf("%d codecs kept, want 2 (one collection, the numeric IDs)", got)
	}
}
