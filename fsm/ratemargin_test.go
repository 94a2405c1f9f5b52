package fsm

import (
	"bytes"
	"math"
	"testing"
	"time"
)

var takenAt = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// A margin by rates is the kind's peak rate × the backup's age × RatesFactor, rounded up; a HiLo
// tag skips at least its last range; each counter at most half of what is left above it.
func TestAheadByRates(t *testing.T) {
	rates := IssueRates{TakenAt: takenAt, IdentitiesPerSecond: 2.5, HiLoPerSecond: 0.01}
	for _, c := range []struct {
		name                string
		rates               IssueRates
		now                 time.Time
		age                 time.Duration
		future              bool
		identitiesByRates   bool
		hiloByRates         bool
		lastRange           int64
		identitiesAtStart   int64
		hiloAtStart         int64
		wantIdentitiesValue int64
		wantHiLoMax         int64
	}{
		// 2.5/s × 60 s × 2 = 300; HiLo 0.01/s × 60 × 2 = 1.2, rounded up 2, below the range of 32.
		{name: "rate × age × factor", rates: rates, now: takenAt.Add(time.Minute), age: time.Minute, identitiesByRates: true, hiloByRates: true,
			lastRange: 32, identitiesAtStart: 100, hiloAtStart: 3200, wantIdentitiesValue: 400, wantHiLoMax: 3232},
		// 0.01/s × 1 h × 2 = 72, above the last range of 32.
		{name: "hilo above its floor", rates: rates, now: takenAt.Add(time.Hour), age: time.Hour, identitiesByRates: false, hiloByRates: true,
			lastRange: 32, identitiesAtStart: 100, hiloAtStart: 3200, wantIdentitiesValue: 100, wantHiLoMax: 3272},
		{name: "a backup from the future is age 0", rates: rates, now: takenAt.Add(-time.Hour), future: true, identitiesByRates: true, hiloByRates: true,
			lastRange: 32, identitiesAtStart: 100, hiloAtStart: 3200, wantIdentitiesValue: 100, wantHiLoMax: 3232},
		{name: "an old backup without rates takes none", now: takenAt.Add(time.Hour), identitiesByRates: true, hiloByRates: true,
			lastRange: 32, identitiesAtStart: 100, hiloAtStart: 3200, wantIdentitiesValue: 100, wantHiLoMax: 3200},
		// A rate so high that the margin passes any int64: capped at half of what is left.
		{name: "capped", rates: IssueRates{TakenAt: takenAt, IdentitiesPerSecond: 1e300, HiLoPerSecond: math.Inf(1)}, now: takenAt.Add(time.Hour), age: time.Hour,
			identitiesByRates: true, hiloByRates: true, identitiesAtStart: math.MaxInt64 - 11, hiloAtStart: 1,
			wantIdentitiesValue: math.MaxInt64 - 6, wantHiLoMax: 1 + (math.MaxInt64-1)/2},
		{name: "a NaN rate is none", rates: IssueRates{TakenAt: takenAt, IdentitiesPerSecond: math.NaN()}, now: takenAt.Add(time.Hour), age: time.Hour,
			identitiesByRates: true, identitiesAtStart: 100, hiloAtStart: 3200, wantIdentitiesValue: 100, wantHiLoMax: 3200},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &Backup{
				Identities: []Identity{{Database: DefaultDatabase, Name: "invoices", Value: c.identitiesAtStart}},
				HiLo:       []HiLoMax{{Database: DefaultDatabase, Tag: "users", Max: c.hiloAtStart}},
				lastRanges: []int64{c.lastRange},
				Rates:      c.rates,
			}
			m := MarginByRates(b.Rates, c.now)
			if m.Age != c.age || m.Future != c.future {
				t.Fatalf("MarginByRates: age %v, future %v; want %v, %v", m.Age, m.Future, c.age, c.future)
			}
			got := b.AheadByRates(m, c.identitiesByRates, c.hiloByRates)
			if b.Identities[0].Value != c.wantIdentitiesValue || b.HiLo[0].Max != c.wantHiLoMax {
				t.Fatalf("after AheadByRates: invoices %d, users %d; want %d, %d", b.Identities[0].Value, b.HiLo[0].Max, c.wantIdentitiesValue, c.wantHiLoMax)
			}
			if got.Identities.Max != c.wantIdentitiesValue-c.identitiesAtStart || got.HiLo.Max != c.wantHiLoMax-c.hiloAtStart {
				t.Fatalf("AheadByRates answered %+v; want what it added", got)
			}
		})
	}
}

// A backup records its rates and time, and a restore reads them back; one written without
// rates (as by an older build) reads as none, and the HiLo tags' last ranges come with it.
func TestBackupRecordsItsRates(t *testing.T) {
	f := oldCluster(t)
	rates := IssueRates{TakenAt: takenAt, IdentitiesPerSecond: 12.5, HiLoPerSecond: 3}
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer) error
		want  IssueRates
	}{
		{"whole, rated", func(w *bytes.Buffer) error { return f.WriteBackup(w, rates) }, rates},
		{"database, rated", func(w *bytes.Buffer) error { return f.WriteDatabaseBackup(w, "", rates) }, rates},
		{"whole, unrated", func(w *bytes.Buffer) error { return f.WriteBackup(w, IssueRates{}) }, IssueRates{}},
	} {
		b := mustReadBackup(t, c.write)
		if !b.Rates.TakenAt.Equal(c.want.TakenAt) || b.Rates.IdentitiesPerSecond != c.want.IdentitiesPerSecond || b.Rates.HiLoPerSecond != c.want.HiLoPerSecond {
			t.Errorf("%s: rates %+v; want %+v", c.name, b.Rates, c.want)
		}
		if len(b.lastRanges) != len(b.HiLo) {
			t.Errorf("%s: %d last ranges for %d HiLo tags", c.name, len(b.lastRanges), len(b.HiLo))
		}
	}
}
