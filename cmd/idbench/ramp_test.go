package main

import (
	"bytes"
	"testing"
	"time"
)

// The ramp, 1 k to 1 M calls/s doubling every 2 s: eleven rates (the last one capped at
// 1 M instead of 1,024,000), 22 s in all, and the run lasts exactly that.
func TestRampSteps(t *testing.T) {
	cfg, err := parseConfig([]string{"--strategy", "client-hilo", "--ramp", "1000:1000000:2s"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.ramp
	if r.steps() != 11 || r.length() != 22*time.Second || cfg.duration != r.length() {
		t.Fatalf("ramp %v: %d steps, %v long, run of %v; want 11 steps, 22s, and the run as long", r, r.steps(), r.length(), cfg.duration)
	}
	if got := cfg.describe(); got != "idnode client-hilo ramp=1000:1e+06:2s" {
		t.Errorf("describe() = %q", got)
	}
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{
		{0, 1000}, {1999 * time.Millisecond, 1000}, {2 * time.Second, 2000}, {19 * time.Second, 512_000},
		{20 * time.Second, 1_000_000}, {21900 * time.Millisecond, 1_000_000}, {time.Hour, 1_000_000},
	} {
		if got := r.rateAt(c.at); got != c.want {
			t.Errorf("rateAt(%v) = %g, want %g", c.at, got, c.want)
		}
	}
	if one := (&ramp{from: 500, to: 500, step: time.Second}); one.steps() != 1 || one.length() != time.Second {
		t.Errorf("a flat ramp: %d steps, %v; want one step", one.steps(), one.length())
	}
	if exact := (&ramp{from: 1000, to: 8000, step: time.Second}); exact.steps() != 4 {
		t.Errorf("1000:8000: %d steps, want 4 (1k, 2k, 4k, 8k)", exact.steps())
	}
}

// Four callers of a 1,000 calls/s ramp each call every 4 ms, starting 1 ms apart; a step later
// (2,000 calls/s) every 2 ms.
func TestPacerSpacesCallers(t *testing.T) {
	r := &ramp{from: 1000, to: 2000, step: time.Second}
	begin := time.Unix(1_000_000, 0)
	for caller := range 4 {
		p := newPacer(r, begin, 4, caller)
		if d := p.next.Sub(begin); d != time.Duration(caller)*time.Millisecond {
			t.Errorf("caller %d starts at %v, want %dms", caller, d, caller)
		}
		if d := p.interval(begin); d != 4*time.Millisecond {
			t.Errorf("caller %d: interval %v in the first step, want 4ms", caller, d)
		}
		if d := p.interval(begin.Add(time.Second)); d != 2*time.Millisecond {
			t.Errorf("caller %d: interval %v in the second step, want 2ms", caller, d)
		}
	}
}
