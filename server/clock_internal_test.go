package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// The warning about a clock off the leader's comes at once, again only every clockWarnEvery
// while it stays, and once more at once after the clock was back within the threshold (which
// is said once, at INFO).
func TestClockWarningIsRepeatedOnlyEveryTenMinutes(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	now := time.Date(2026, 11, 27, 2, 0, 0, 0, time.UTC)
	w := &clockWatch{now: func() time.Time { return now }, warn: 500 * time.Millisecond,
		log: slog.New(slog.NewJSONHandler(&logs, nil)), observer: noObserver{}}
	count := func() (warnings, backs int) {
		for line := range strings.Lines(logs.String()) {
			var l struct{ Level, Msg string }
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatal(err)
			}
			switch {
			case l.Level == "WARN" && strings.HasPrefix(l.Msg, "this node's clock is off the leader's"):
				warnings++
			case l.Level == "INFO" && strings.HasPrefix(l.Msg, "this node's clock is back within"):
				backs++
			}
		}
		return warnings, backs
	}
	for _, step := range []struct {
		after         time.Duration
		offset        time.Duration
		warned, backs int
	}{
		{0, -2 * time.Second, 1, 0},
		{time.Minute, -2 * time.Second, 1, 0},
		{clockWarnEvery - time.Minute, -2 * time.Second, 2, 0}, // ten minutes after the first
		{time.Second, 400 * time.Millisecond, 2, 1},
		{time.Second, -400 * time.Millisecond, 2, 1},
		{time.Second, 600 * time.Millisecond, 3, 1},
	} {
		now = now.Add(step.after)
		w.measured(step.offset, time.Millisecond, "A")
		if w, b := count(); w != step.warned || b != step.backs {
			t.Fatalf("after an offset of %v: %d warnings and %d back-within lines, want %d and %d\n%s", step.offset, w, b, step.warned, step.backs, logs.String())
		}
	}
}
