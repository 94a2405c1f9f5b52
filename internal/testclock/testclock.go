// Package testclock is the wall clock of idnode's test build (build tag testclock,
// cmd/idnode/testclock_on.go): the machine's clock plus an offset that a test writes to a
// file, so that an end-to-end test can step one real node's clock forward or back while it
// runs, as a bad NTP step would, without touching the machine's clock. The release build
// does not link this package: only the tagged file refers to it (docs/testing.md, "A node's
// clock in tests").
package testclock

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idnode/idnode/internal/durablefile"
)

const (
	// RereadEvery is how often Now reads the file again: a step shows in the node's clock
	// within this, much less than the clock probe's interval, and reading a few bytes a
	// hundred times a second costs the node nothing.
	RereadEvery = 10 * time.Millisecond
	// maxFileBytes bounds what is read of the file: a duration is a few bytes, and a file
	// that is something else must not be read whole on the node's every clock reading.
	maxFileBytes = 64
)

// Clock is the machine's wall clock plus the offset in its file. Its zero value is not
// usable; New makes one.
type Clock struct {
	path   string
	origin time.Time // the monotonic origin of nextRead
	// offset is the file's last valid offset, in nanoseconds.
	offset atomic.Int64
	// nextRead is when (nanoseconds since origin) Now reads the file again.
	nextRead atomic.Int64
	// reading is held by the one caller reading the file, so two reads never store their
	// offsets out of order.
	reading sync.Mutex
}

// New is the clock whose offset is in the file at path, read at once. A missing file is an
// offset of 0 (a test removes it to put the clock back); a file that does not hold a
// duration (time.ParseDuration's: "2s", "-3s", "+1.5s", "87660h") leaves the last offset in
// force, so a half-made edit cannot jolt the clock.
func New(path string) *Clock {
	c := &Clock{path: path, origin: time.Now()}
	c.read()
	return c
}

// Now is the machine's clock plus the offset. The offset is added to the monotonic reading
// too (time.Time.Add), so two readings either side of a step differ by the step, as two
// readings of a stepped wall clock do; code that times a span across a step sees the step.
func (c *Clock) Now() time.Time {
	now := time.Now()
	if since := int64(now.Sub(c.origin)); since >= c.nextRead.Load() {
		c.reread(since)
	}
	return now.Add(time.Duration(c.offset.Load()))
}

// Offset is the offset in force.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// reread reads the file unless another caller is reading it; the others go on with the
// offset in force.
func (c *Clock) reread(since int64) {
	if !c.reading.TryLock() {
		return
	}
	defer c.reading.Unlock()
	if since < c.nextRead.Load() {
		return // read meanwhile
	}
	c.nextRead.Store(since + int64(RereadEvery))
	c.read()
}

// read sets the offset from the file: 0 when it is missing, unchanged when it cannot be read
// or holds no duration.
func (c *Clock) read() {
	d, err := readOffset(c.path)
	if err != nil {
		return
	}
	c.offset.Store(int64(d))
}

func readOffset(path string) (time.Duration, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return 0, err
	}
	return Parse(b)
}

// Parse reads an offset as the file holds it: a duration (time.ParseDuration), with white
// space around it allowed.
func Parse(b []byte) (time.Duration, error) {
	if len(b) > maxFileBytes {
		return 0, fmt.Errorf("testclock: an offset is at most %d bytes, got more", maxFileBytes)
	}
	d, err := time.ParseDuration(string(bytes.TrimSpace(b)))
	if err != nil {
		return 0, fmt.Errorf("testclock: %w", err)
	}
	return d, nil
}

// Write sets the offset in the file at path, for a test: written to a temporary file and
// renamed over it, so a node never reads half of it.
func Write(path string, offset time.Duration) error {
	return durablefile.WriteFile(path, []byte(offset.String()+"\n"), 0o644)
}
