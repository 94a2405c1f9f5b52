package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ramp is an open-loop load that starts at from calls/s (all callers together) and doubles
// every step until it reaches to, which it holds for one last step. A closed loop (each caller
// calling again as soon as it has an answer) runs client-hilo at millions of IDs/s from the
// first call; a ramp shows what a HiLo generator does while an application's rate grows past
// the sizes of its ranges.
type ramp struct {
	from, to float64
	step     time.Duration
}

// parseRamp reads FROM:TO:STEP, e.g. "1000:1000000:2s".
func parseRamp(s string) (*ramp, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("--ramp must be FROM:TO:STEP (calls/s, calls/s, duration), e.g. 1000:1000000:2s; got %q", s)
	}
	from, err1 := strconv.ParseFloat(parts[0], 64)
	to, err2 := strconv.ParseFloat(parts[1], 64)
	step, err3 := time.ParseDuration(parts[2])
	switch {
	case err1 != nil || err2 != nil || err3 != nil:
		return nil, fmt.Errorf("--ramp %q: FROM and TO are calls/s, STEP a duration such as 2s", s)
	case from < 1 || to < from || to > 1e9:
		return nil, fmt.Errorf("--ramp %q: want 1 <= FROM <= TO <= 10^9 calls/s", s)
	case step < time.Millisecond:
		return nil, fmt.Errorf("--ramp %q: STEP must be at least 1ms", s)
	}
	r := &ramp{from: from, to: to, step: step}
	if r.length() > maxDuration {
		return nil, fmt.Errorf("--ramp %q lasts %v, more than the %v a run may", s, r.length(), maxDuration)
	}
	return r, nil
}

// steps is the number of rates the ramp runs at: from, 2·from, … and to.
func (r *ramp) steps() int {
	return int(math.Ceil(math.Log2(r.to/r.from)-1e-9)) + 1
}

// length is how long the whole ramp lasts: it is the run's duration.
func (r *ramp) length() time.Duration {
	return time.Duration(r.steps()) * r.step
}

// rateAt is the target rate (calls/s, all callers together) at elapsed into the run.
func (r *ramp) rateAt(elapsed time.Duration) float64 {
	n := min(max(int(elapsed/r.step), 0), 62)
	return min(r.from*float64(uint64(1)<<n), r.to)
}

func (r *ramp) String() string {
	return fmt.Sprintf("%g:%g:%v", r.from, r.to, r.step)
}

// pacer spaces one caller's calls so that callers of one ramp together follow its rate. A
// caller that fell behind (a call that waited for the network) calls again at once until it
// is back on schedule, so the ramp's rate holds on average, as an application's load would.
type pacer struct {
	r       *ramp
	begin   time.Time
	callers int
	next    time.Time // when this caller's next call is due
}

func newPacer(r *ramp, begin time.Time, callers, caller int) *pacer {
	// Callers start spread over one interval, not all at once.
	first := time.Duration(float64(caller) / r.from * float64(time.Second))
	return &pacer{r: r, begin: begin, callers: callers, next: begin.Add(first)}
}

// wait sleeps until the caller's next call is due and schedules the one after.
func (p *pacer) wait() {
	if d := time.Until(p.next); d > 0 {
		time.Sleep(d)
	}
	p.next = p.next.Add(p.interval(p.next))
}

// interval returns the time between two calls of one caller at time t.
func (p *pacer) interval(t time.Time) time.Duration {
	return time.Duration(float64(p.callers) / p.r.rateAt(t.Sub(p.begin)) * float64(time.Second))
}
