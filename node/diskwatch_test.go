package node

import (
	"math"
	"testing"
	"time"
)

// TestDiskWatchJudgesTheLastHour: the days left follow the fall of the free bytes over the
// samples of the last hour; older samples are dropped, so the window stays bounded.
func TestDiskWatchJudgesTheLastHour(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	w := &diskWatch{dir: t.TempDir(), now: func() time.Time { return now }}
	if free, days := w.headroom(); free != 0 || !math.IsInf(days, 1) {
		t.Fatalf("before any sample: %d bytes, %v days; want 0, +Inf", free, days)
	}
	w.sample()
	if free, days := w.headroom(); free == 0 || !math.IsInf(days, 1) {
		t.Fatalf("after one sample: %d bytes, %v days; want the free bytes, +Inf", free, days)
	}
	// Samples as the file system would give them: 100 GB free an hour and a minute ago,
	// falling by 1 GB an hour since.
	w.samples = nil
	for m := 0; m <= 61; m++ {
		w.add(diskSample{at: now.Add(time.Duration(m-61) * time.Minute), free: 100e9 - uint64(m)*1e9/60})
	}
	if len(w.samples) != 61 {
		t.Errorf("kept %d samples, want the 61 of the last hour", len(w.samples))
	}
	free, days := w.headroom()
	wantFree := uint64(100e9) - 61*uint64(1e9)/60
	if wantDays := float64(wantFree) / 24e9; free != wantFree || math.Abs(days-wantDays) > 0.01 {
		t.Errorf("headroom = %d bytes, %.3f days; want %d, %.3f (at 1 GB an hour)", free, days, wantFree, wantDays)
	}
}
