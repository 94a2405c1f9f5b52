package testclock

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/poll"
)

// stepWait bounds how long a test waits for a step to show: many times RereadEvery, for a
// busy machine.
const stepWait = 10 * time.Second

// offsetOf is how far c's clock is from the machine's, to within the two readings' gap.
func offsetOf(c *Clock) time.Duration {
	return c.Now().Round(0).Sub(time.Now().Round(0))
}

// waitOffset polls c until its clock is want off the machine's, within a tolerance far above
// two readings' gap and far below any step the tests make.
func waitOffset(t *testing.T, c *Clock, want time.Duration) {
	t.Helper()
	const tolerance = 100 * time.Millisecond
	poll.Until(t, fmt.Sprintf("the clock %v off the machine's", want), stepWait, RereadEvery, func() error {
		if got := offsetOf(c); got < want-tolerance || got > want+tolerance {
			return fmt.Errorf("it is %v off", got)
		}
		return nil
	})
}

func TestClockFollowsItsFileForwardAndBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "offset")
	c := New(path)
	if c.Offset() != 0 {
		t.Fatalf("offset without a file = %v, want 0", c.Offset())
	}
	waitOffset(t, c, 0)
	for _, step := range []time.Duration{2 * time.Second, -time.Second, 87660 * time.Hour, 0} {
		if err := Write(path, step); err != nil {
			t.Fatal(err)
		}
		waitOffset(t, c, step)
		if c.Offset() != step {
			t.Fatalf("Offset() = %v after writing %v", c.Offset(), step)
		}
	}
	if err := Write(path, time.Minute); err != nil {
		t.Fatal(err)
	}
	waitOffset(t, c, time.Minute)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitOffset(t, c, 0)
}

func TestClockKeepsItsOffsetOverAFileWithoutADuration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "offset")
	if err := Write(path, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	c := New(path)
	if c.Offset() != 3*time.Second {
		t.Fatalf("offset read at once = %v, want 3s", c.Offset())
	}
	for _, bad := range []string{"", "soon", "3", string(make([]byte, maxFileBytes+10))} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		// Each reading after the next re-read has read the bad file: the offset stands.
		began := time.Now()
		for time.Since(began) < 3*RereadEvery {
			if got := offsetOf(c); got < 3*time.Second-time.Second || got > 3*time.Second+time.Second {
				t.Fatalf("file %q: the clock is %v off, want the 3s in force", bad, got)
			}
		}
	}
	// A valid offset again is taken: the clock was still reading the file.
	if err := os.WriteFile(path, []byte(" -2s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitOffset(t, c, -2*time.Second)
}

// TestClockUnderContention reads the clock from many goroutines while the offset flips:
// every reading is the machine's clock plus one of the offsets written, never a torn or
// zero one, and the race detector sees the re-reads.
func TestClockUnderContention(t *testing.T) {
	path := filepath.Join(t.TempDir(), "offset")
	offsets := []time.Duration{time.Hour, 2 * time.Hour}
	if err := Write(path, offsets[0]); err != nil {
		t.Fatal(err)
	}
	c := New(path)
	const readers, readings, flips = 8, 20000, 20
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range readings {
				got := offsetOf(c)
				if (got-offsets[0]).Abs() > 10*time.Minute && (got-offsets[1]).Abs() > 10*time.Minute {
					errs <- fmt.Errorf("a reading is %v off the machine's, want one of %v", got, offsets)
					return
				}
			}
		}()
	}
	for i := range flips {
		if err := Write(path, offsets[(i+1)%2]); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]time.Duration{"2s": 2 * time.Second, "-3s\n": -3 * time.Second, " +1.5s ": 1500 * time.Millisecond, "0": 0} {
		if got, err := Parse([]byte(in)); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "2", "two seconds", "9999999999h"} {
		if got, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, got)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts is what Write writes back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2s", "-3s", "+1.5s", " 87660h\n", "", "1e9s", "-9223372036854775808ns"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		if err != nil {
			return
		}
		if again, err := Parse([]byte(d.String() + "\n")); err != nil || again != d {
			t.Fatalf("Parse(%q) = %v, but Parse of its own form %q = %v, %v", b, d, d.String(), again, err)
		}
	})
}
