package server

import (
	"testing"
	"time"
)

// The rates a backup records are the highest rise per second between two samples of the last
// hour, per kind; a fall counts as none, and samples older than the hour drop out.
func TestIssueRatesPeakOfTheLastHour(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	now := start
	var ids, hilo float64
	r := &issueRates{totals: func() (float64, float64) { return ids, hilo }, now: func() time.Time { return now }}
	at := func(d time.Duration, i, h float64) {
		now, ids, hilo = start.Add(d), i, h
		r.sample()
	}
	at(0, 0, 0)
	at(time.Minute, 600, 60)     // 10 a second, 1 a second
	at(2*time.Minute, 660, 6060) // 1 a second, 100 a second
	at(3*time.Minute, 100, 6060) // a database deleted: a fall, no rate
	at(4*time.Minute, 160, 6120) // 1 a second, 1 a second
	got := r.backup()
	if !got.TakenAt.Equal(start.Add(4*time.Minute)) || got.IdentitiesPerSecond != 10 || got.HiLoPerSecond != 100 {
		t.Fatalf("backup after four minutes recorded %+v; want 10 and 100 a second at 12:04", got)
	}
	// An hour and three minutes in: only the interval from 12:03 to 12:04 and the one since
	// are in the window (12:03 to 13:03), the older samples gone.
	at(time.Hour+3*time.Minute, 160, 6120)
	got = r.backup()
	if got.IdentitiesPerSecond != 1 || got.HiLoPerSecond != 1 {
		t.Fatalf("an hour later recorded %+v; want the peaks of the last hour only, 1 and 1 a second", got)
	}
	if len(r.samples) != 3 {
		t.Fatalf("kept %d samples; want the three the window needs", len(r.samples))
	}
}
