package fsm

import (
	"math"
	"time"
)

// RatesFactor is how many times the backup's peak rate a margin by rates assumes the old
// cluster kept up after the backup: the peak of the last hour is not a bound on the next
// (docs/decisions/0044-restore-margin-by-rates.md).
const RatesFactor = 2

// IssueRates is what a backup records for a margin by rates: when it was taken, on the
// leader's clock, and the cluster-wide peak issue rates per second of the hour before. A
// backup of an older build has none (TakenAt is zero).
type IssueRates struct {
	TakenAt             time.Time
	IdentitiesPerSecond float64
	HiLoPerSecond       float64
}

// Recorded reports whether the backup recorded its rates.
func (r IssueRates) Recorded() bool {
	return !r.TakenAt.IsZero()
}

// RatesMargin is what a margin by rates assumed: the backup's rates, its age at the restore
// and whether its time was in the future (then taken as age 0).
type RatesMargin struct {
	Rates  IssueRates
	Age    time.Duration
	Future bool
}

// MarginByRates is the margin a restore at now takes from rates: the age is now − taken-at,
// never negative (a backup from the future, by clock skew, is age 0).
func MarginByRates(rates IssueRates, now time.Time) RatesMargin {
	m := RatesMargin{Rates: rates}
	if !rates.Recorded() {
		return m
	}
	m.Age = now.Sub(rates.TakenAt)
	if m.Age < 0 {
		m.Age, m.Future = 0, true
	}
	return m
}

// numbers is rate × age × RatesFactor, rounded up, at most math.MaxInt64 (NaN or a negative
// rate is 0).
func (m RatesMargin) numbers(perSecond float64) int64 {
	x := math.Ceil(perSecond * m.Age.Seconds() * RatesFactor)
	switch {
	case !(x > 0):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(x)
}

// capped is margin for a counter at v, at most half of what is left above v: a guess never
// takes a counter past math.MaxInt64, nor uses it up.
func capped(margin, v int64) int64 {
	return min(margin, (math.MaxInt64-max(v, 0))/2)
}

// AheadByRates raises each identity counter (when identities) and each HiLo Max (when hilo)
// of the backup by the margin m assumes: the kind's peak rate × the backup's age ×
// RatesFactor, a HiLo tag at least its last range, each capped (capped). A backup without
// rates is left as it is.
func (b *Backup) AheadByRates(m RatesMargin, identities, hilo bool) MarginSkipped {
	var out MarginSkipped
	if !m.Rates.Recorded() {
		return out
	}
	if identities {
		add := m.numbers(m.Rates.IdentitiesPerSecond)
		ids := make([]int64, len(b.Identities))
		for i := range b.Identities {
			ids[i] = capped(add, b.Identities[i].Value)
			b.Identities[i].Value += ids[i]
		}
		out.Identities = spread(ids)
	}
	if hilo {
		add := m.numbers(m.Rates.HiLoPerSecond)
		his := make([]int64, len(b.HiLo))
		for i := range b.HiLo {
			h := &b.HiLo[i]
			his[i] = capped(max(add, b.lastRange(i)), h.Max)
			h.Max += his[i]
		}
		out.HiLo = spread(his)
	}
	return out
}

// lastRange is the size of HiLo tag i's last range; 0 when the backup did not say.
func (b *Backup) lastRange(i int) int64 {
	if i < len(b.lastRanges) {
		return b.lastRanges[i]
	}
	return 0
}

// IssuedTotals are the sums of every identity counter and of every HiLo Max: sampled over
// time, their rise is what the cluster issued (server/issuerates.go). Floats, as the sums
// may pass an int64 and a rate wants no more precision.
func (f *FSM) IssuedTotals() (identities, hilo float64) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, d := range f.st.databases {
		for _, v := range d.identities {
			identities += float64(v)
		}
		for _, h := range d.hilo {
			hilo += float64(h.max)
		}
	}
	return identities, hilo
}
