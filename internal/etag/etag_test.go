package etag

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func open(t testing.TB, path string, reserve uint64) *Counter {
	t.Helper()
	c, err := Open(path, reserve)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func next(t testing.TB, c *Counter, n uint64) uint64 {
	t.Helper()
	first, err := c.Next(n)
	if err != nil {
		t.Fatalf("Next(%d): %v", n, err)
	}
	return first
}

func fileWatermark(t *testing.T, path string) uint64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := parseWatermark(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return w
}

func TestFreshStartsAtOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c := open(t, path, 10)
	if got := c.Last(); got != 0 {
		t.Fatalf("Last on fresh counter = %d, want 0", got)
	}
	// Open creates the file right away, with watermark 0.
	if w := fileWatermark(t, path); w != 0 {
		t.Fatalf("fresh file watermark = %d, want 0", w)
	}
	for want := uint64(1); want <= 25; want++ {
		if got := next(t, c, 1); got != want {
			t.Fatalf("Next = %d, want %d", got, want)
		}
	}
	if got := c.Last(); got != 25 {
		t.Fatalf("Last = %d, want 25", got)
	}
	if w := fileWatermark(t, path); w < 25 {
		t.Fatalf("file watermark %d below handed-out etag 25", w)
	}
}

func TestBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c := open(t, path, 100)
	if got := next(t, c, 5); got != 1 { // 1..5
		t.Fatalf("first block = %d, want 1", got)
	}
	if got := next(t, c, 250); got != 6 { // 6..255, larger than reserve
		t.Fatalf("second block = %d, want 6", got)
	}
	if w := fileWatermark(t, path); w < 255 {
		t.Fatalf("watermark %d does not cover block ending at 255", w)
	}
	if got := next(t, c, 1); got != 256 {
		t.Fatalf("after blocks = %d, want 256", got)
	}
	if got := c.Last(); got != 256 {
		t.Fatalf("Last = %d, want 256", got)
	}
	if _, err := c.Next(0); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("Next(0) err = %v, want ErrInvalidCount", err)
	}
}

func TestDefaultReserve(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c := open(t, path, 0)
	next(t, c, 1)
	if w := fileWatermark(t, path); w != 1+DefaultReserve {
		t.Fatalf("watermark after first Next = %d, want %d", w, 1+DefaultReserve)
	}
}

func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	var max uint64
	for round := range 5 {
		c, err := Open(path, 7)
		if err != nil {
			t.Fatal(err)
		}
		if c.Last() != 0 {
			t.Fatalf("round %d: Last after Open = %d, want 0", round, c.Last())
		}
		for i := range 20 {
			got := next(t, c, uint64(1+i%3))
			if got <= max {
				t.Fatalf("round %d: Next = %d, not above %d handed out before", round, got, max)
			}
			max = got + uint64(i%3)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if _, err := c.Next(1); !errors.Is(err, ErrClosed) {
			t.Fatalf("Next after Close err = %v, want ErrClosed", err)
		}
	}
}

func TestRestartWithoutNextSkipsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c := open(t, path, 10)
	next(t, c, 3) // 1..3, watermark 13
	_ = c.Close()
	for range 3 {
		c, err := Open(path, 10)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Close()
	}
	c = open(t, path, 10)
	if got := next(t, c, 1); got != 14 {
		t.Fatalf("Next after restarts = %d, want 14 (watermark+1)", got)
	}
}

func TestLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c, err := Open(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, 10); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open err = %v, want ErrLocked", err)
	}
	_ = c.Close()
	c2 := open(t, path, 10)
	next(t, c2, 1)
}

func TestCorrupt(t *testing.T) {
	good := string(formatWatermark(12345))
	cases := []struct {
		name, content string
		want          error
	}{
		{"empty", "", ErrCorrupt},
		{"garbage", "hello world\n", ErrCorrupt},
		{"bare number", "12345\n", ErrCorrupt},
		{"truncated", good[:len(good)-3], ErrCorrupt},
		{"no newline", strings.TrimSuffix(good, "\n"), ErrCorrupt},
		{"two lines", good + good, ErrCorrupt},
		{"digit changed", strings.Replace(good, "12345", "12335", 1), ErrCorrupt},
		{"bad checksum", good[:len(good)-2] + "0\n", ErrCorrupt},
		{"leading zero", "idnode-etag v1 012345 00000000\n", ErrCorrupt},
		{"too big", string(formatWatermark(Max + 1)), ErrCorrupt},
		{"huge", strings.Repeat("x", 10000), ErrCorrupt},
		{"newer version", "idnode-etag v2 5 00000000\n", ErrVersion},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "etag")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Open(path, 10)
			if err == nil {
				_ = c.Close()
				t.Fatalf("Open accepted %q", tc.content)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			// The file is left alone for the operator, and the lock released.
			if data, _ := os.ReadFile(path); string(data) != tc.content {
				t.Fatalf("Open modified the corrupt file")
			}
			l, err := lockFile(path + ".lock")
			if err != nil {
				t.Fatalf("lock not released after failed Open: %v", err)
			}
			_ = l.Close()
		})
	}
}

func TestUnreadable(t *testing.T) {
	// A directory where the file should be: readable as a file it is not.
	path := filepath.Join(t.TempDir(), "etag")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Open(path, 10)
	if err == nil {
		_ = c.Close()
		t.Fatal("Open accepted a directory as watermark file")
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error does not name the file: %v", err)
	}
}

func TestFormatRoundTrip(t *testing.T) {
	for _, w := range []uint64{0, 1, 100_000, 1<<32 + 7, Max} {
		got, err := parseWatermark(formatWatermark(w))
		if err != nil || got != w {
			t.Fatalf("round trip %d: got %d, %v", w, got, err)
		}
	}
	if got := string(formatWatermark(0)); !strings.HasPrefix(got, "idnode-etag v1 0 ") || len(got) != 26 {
		t.Fatalf("unexpected format %q", got)
	}
}

func TestExhausted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	if err := writeWatermark(path, Max-5); err != nil {
		t.Fatal(err)
	}
	c := open(t, path, 1000)
	if _, err := c.Next(^uint64(0)); !errors.Is(err, ErrExhausted) {
		t.Fatalf("Next(MaxUint64) err = %v, want ErrExhausted", err)
	}
	if _, err := c.Next(6); !errors.Is(err, ErrExhausted) {
		t.Fatalf("Next(6) err = %v, want ErrExhausted", err)
	}
	if got := next(t, c, 3); got != Max-4 {
		t.Fatalf("Next(3) = %d, want %d", got, Max-4)
	}
	if got := next(t, c, 2); got != Max-1 {
		t.Fatalf("Next(2) = %d, want %d", got, Max-1)
	}
	if got := c.Last(); got != Max {
		t.Fatalf("Last = %d, want Max", got)
	}
	for range 3 {
		if _, err := c.Next(1); !errors.Is(err, ErrExhausted) {
			t.Fatalf("Next past Max err = %v, want ErrExhausted", err)
		}
	}
	if w := fileWatermark(t, path); w != Max {
		t.Fatalf("watermark = %d, want clamped to Max", w)
	}
	_ = c.Close()
	c = open(t, path, 1000)
	if _, err := c.Next(1); !errors.Is(err, ErrExhausted) {
		t.Fatalf("Next after reopen at Max err = %v, want ErrExhausted", err)
	}
}

func TestPersistFailureSkipsAndRetries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c := open(t, path, 10)
	real := c.persist
	fail := errors.New("disk on fire")
	c.persist = func(uint64) error { return fail }

	if _, err := c.Next(1); !errors.Is(err, ErrPersist) || !errors.Is(err, fail) {
		t.Fatalf("Next with failing disk err = %v, want ErrPersist wrapping the cause", err)
	}
	if _, err := c.Next(3); !errors.Is(err, ErrPersist) {
		t.Fatalf("second Next with failing disk err = %v, want ErrPersist", err)
	}
	if got := c.Last(); got != 0 {
		t.Fatalf("Last after failures = %d, want 0", got)
	}
	c.persist = real
	got := next(t, c, 1)
	if got <= 4 {
		t.Fatalf("Next after recovery = %d, must skip the failed 1..4", got)
	}
	if w := fileWatermark(t, path); w < got {
		t.Fatalf("watermark %d below %d", w, got)
	}
}

func TestPersistFailureRealDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "etag")
	c := open(t, path, 10)
	next(t, c, 1) // 1, watermark 11
	// Make the temp file impossible to create: a non-empty directory in its place.
	if err := os.MkdirAll(filepath.Join(path+".tmp", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 11; i++ {
		next(t, c, 1) // within the watermark: no disk needed
	}
	if _, err := c.Next(1); !errors.Is(err, ErrPersist) {
		t.Fatalf("err = %v, want ErrPersist", err)
	}
	if err := os.RemoveAll(path + ".tmp"); err != nil {
		t.Fatal(err)
	}
	if got := next(t, c, 1); got != 13 {
		t.Fatalf("Next after disk recovered = %d, want 13 (12 skipped)", got)
	}
}

// TestConcurrent hammers the counter with a tiny reserve so the slow path
// runs constantly, and checks that every etag is returned once, each
// goroutine sees increasing etags, and no Next returns before a watermark
// covering its etags is on disk.
func TestConcurrent(t *testing.T) {
	const (
		goroutines = 64
		perG       = 10_000
		reserve    = 100
	)
	if testing.Short() {
		t.Skip("short")
	}
	path := filepath.Join(t.TempDir(), "etag")
	c := open(t, path, reserve)
	var onDisk atomic.Uint64 // highest watermark whose write has completed
	var syncs atomic.Int64
	real := c.persist
	c.persist = func(w uint64) error {
		err := real(w)
		if err == nil {
			syncs.Add(1)
			for {
				old := onDisk.Load()
				if w <= old || onDisk.CompareAndSwap(old, w) {
					break
				}
			}
		}
		return err
	}

	results := make([][]uint64, goroutines)
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			n := uint64(1 + g%3) // mix of single etags and blocks
			var got []uint64
			var prev uint64
			for len(got) < perG {
				first, err := c.Next(n)
				if err != nil {
					errs <- err
					return
				}
				last := first + n - 1
				if d := onDisk.Load(); last > d {
					t.Errorf("Next returned %d..%d before it was durable (on disk: %d)", first, last, d)
				}
				if first <= prev {
					t.Errorf("goroutine %d: %d after %d", g, first, prev)
				}
				prev = last
				for e := first; e <= last; e++ {
					got = append(got, e)
				}
			}
			results[g] = got
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var all []uint64
	for _, r := range results {
		all = append(all, r...)
	}
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("etag %d handed out twice", all[i])
		}
	}
	// Nothing failed, so nothing was skipped: the union is exactly 1..N.
	if all[0] != 1 || all[len(all)-1] != uint64(len(all)) {
		t.Fatalf("union is %d..%d for %d etags, want 1..%d", all[0], all[len(all)-1], len(all), len(all))
	}
	if last := c.Last(); last != uint64(len(all)) {
		t.Fatalf("Last = %d, want %d", last, len(all))
	}
	if w := fileWatermark(t, path); w < uint64(len(all)) {
		t.Fatalf("file watermark %d below %d", w, len(all))
	}
	t.Logf("%d etags, %d syncs", len(all), syncs.Load())
}

// TestConcurrentClose checks that Close racing with Next never hands out an
// etag that is not durable and leaves the counter consistent for a reopen.
func TestConcurrentClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etag")
	c, err := Open(path, 5)
	if err != nil {
		t.Fatal(err)
	}
	var max atomic.Uint64
	reached := make(chan struct{}) // closed once some worker got etag 1000
	var once sync.Once
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				first, err := c.Next(1)
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					once.Do(func() { close(reached) })
					return
				}
				if first >= 1000 {
					once.Do(func() { close(reached) })
				}
				for {
					old := max.Load()
					if first <= old || max.CompareAndSwap(old, first) {
						break
					}
				}
			}
		})
	}
	<-reached
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	c2 := open(t, path, 5)
	if got := next(t, c2, 1); got <= max.Load() {
		t.Fatalf("after reopen Next = %d, not above %d", got, max.Load())
	}
}

// BenchmarkNext measures the lock-free fast path: the reserve is so large
// that the watermark never moves during the run.
func BenchmarkNext(b *testing.B) {
	c := open(b, filepath.Join(b.TempDir(), "etag"), 1<<50)
	next(b, c, 1) // the one sync
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Next(1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNextDefaultReserve is the real-world cost per etag with
// DefaultReserve: the fast path plus one fsync'd watermark per 100,000 etags.
func BenchmarkNextDefaultReserve(b *testing.B) {
	c := open(b, filepath.Join(b.TempDir(), "etag"), 0)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Next(1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
