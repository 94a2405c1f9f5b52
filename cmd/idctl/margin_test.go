package main

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func TestParseMargin(t *testing.T) {
	for _, c := range []struct {
		in           string
		add, percent int64
		refusal      string // "" when it parses
	}{
		{"1000", 1000, 0, ""},
		{"0", 0, 0, ""},
		{"10%", 0, 10, ""},
		{"1000+10%", 1000, 10, ""},
		{"9223372036854775807", 1<<63 - 1, 0, ""},
		{"", 0, 0, "a margin is N, P% or N+P%"},
		{"-5", 0, 0, "negative"},
		{"-5%", 0, 0, "negative"},
		{"5+-1%", 0, 0, "negative"},
		{"+5", 0, 0, "a margin is N"},
		{"1e3", 0, 0, "a margin is N"},
		{"0x10", 0, 0, "a margin is N"},
		{" 10", 0, 0, "a margin is N"},
		{"2.5%", 0, 0, "a margin is N"},
		{"10%+5", 0, 0, "a margin is N"},
		{"10+5", 0, 0, "the part after + is a percentage"},
		{"1+2+3%", 0, 0, "a margin is N"},
		{"%", 0, 0, "a margin is N"},
		{"5%%", 0, 0, "a margin is N"},
		{"9223372036854775808", 0, 0, "more than the largest counter"},
		{"99999999999999999999%", 0, 0, "more than the largest counter"},
	} {
		m, err := parseMargin(c.in)
		if c.refusal != "" {
			if err == nil || !strings.Contains(err.Error(), c.refusal) || !strings.Contains(err.Error(), c.in) {
				t.Errorf("parseMargin(%q) = %v, %v; want a refusal naming it: %q", c.in, m, err, c.refusal)
			}
			continue
		}
		if err != nil || m.GetAdd() != c.add || m.GetPercent() != c.percent {
			t.Errorf("parseMargin(%q) = %v, %v; want add %d, percent %d", c.in, m, err, c.add, c.percent)
		}
	}
}

// A margin parses to whole numbers of at least 0, or to an error that names it; what it
// parses to is written back in a form that parses the same.
func FuzzParseMargin(f *testing.F) {
	for _, s := range []string{"1000", "10%", "1000+10%", "-1", "+", "%", "1+%", "9223372036854775808", "0+0%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseMargin(s)
		if err != nil {
			if m != nil || !strings.Contains(err.Error(), "margin") {
				t.Fatalf("parseMargin(%q) = %v, %v: a refusal is an error about the margin and no margin", s, m, err)
			}
			return
		}
		if m.GetAdd() < 0 || m.GetPercent() < 0 {
			t.Fatalf("parseMargin(%q) = %v: negative", s, m)
		}
		again, err := parseMargin(formatMargin(m))
		if err != nil || again.GetAdd() != m.GetAdd() || again.GetPercent() != m.GetPercent() {
			t.Fatalf("parseMargin(%q) = %v, written %q, read back %v, %v", s, m, formatMargin(m), again, err)
		}
	})
}

// Bad margins are usage errors naming the flag, before any file is read or call made.
func TestRestoreRefusesBadMargins(t *testing.T) {
	for _, args := range [][]string{
		{"restore", "b", "--ahead", "-5"},
		{"restore", "b", "--ahead", "lots"},
		{"restore", "b", "--hilo-ahead", "10%%"},
		{"restore", "b", "--ahead", "99999999999999999999"},
	} {
		code, _, errOut := runIdctl(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "flag "+strings.TrimPrefix(args[2], "-")) || !strings.Contains(errOut, "margin") || strings.Count(errOut, "\n") > 1 {
			t.Errorf("idctl %q: exit %d, stderr %q; want a one-line usage error about the margin of %s", args, code, errOut, args[2])
		}
	}
}

// The summary says what a restore without a margin risks, what one with a margin skipped,
// and that series took none.
func TestRestoreRisks(t *testing.T) {
	margin := &idnodev1.RestoreMargin{Identities: &idnodev1.CounterMargin{Add: 1000, Percent: 10}, Hilo: &idnodev1.CounterMargin{}}
	for _, c := range []struct {
		resp       *idnodev1.RestoreResponse
		want, omit []string
	}{
		{&idnodev1.RestoreResponse{Identities: 2, HiloTags: 1},
			[]string{"no margin for 2 identity counters: identities the backup's cluster issued after the backup was taken may be issued again here", "no margin for 1 HiLo maxima", "--ahead"},
			[]string{"series"}},
		{&idnodev1.RestoreResponse{Identities: 2, HiloTags: 1, Series: 3, Ahead: margin, IdentitiesSkippedMin: 1001, IdentitiesSkippedMax: 1500},
			[]string{"margin 1000+10% for 2 identity counters: each set 1001 to 1500 above the backup's", "no margin for 1 HiLo maxima", "no margin for 3 fiscal series"},
			nil},
		{&idnodev1.RestoreResponse{HiloTags: 1, Ahead: &idnodev1.RestoreMargin{Hilo: &idnodev1.CounterMargin{Add: 64}}, HiloSkippedMin: 64, HiloSkippedMax: 64},
			[]string{"margin 64 for 1 HiLo maxima: each set 64 above"},
			[]string{"identit", "no margin"}},
		{&idnodev1.RestoreResponse{Identities: 2, HiloTags: 1, Ahead: &idnodev1.RestoreMargin{ByRates: true}, IdentitiesSkippedMin: 300, IdentitiesSkippedMax: 300,
			HiloSkippedMin: 32, HiloSkippedMax: 64, Rates: &idnodev1.RatesMargin{Recorded: true, IdentitiesPerSecond: 2.5, HiloPerSecond: 0.01, AgeMs: 60_000, Factor: 2}},
			[]string{"margin by rates for 2 identity counters: each set 300 above the backup's (peak 2.5 a second in the hour before the backup x age 1m0s x 2)",
				"margin by rates for 1 HiLo maxima: each set 32 to 64 above the backup's (peak 0.01 a second in the hour before the backup x age 1m0s x 2, at least a tag's last range)"},
			[]string{"no margin", "warning"}},
		{&idnodev1.RestoreResponse{Identities: 2, Ahead: &idnodev1.RestoreMargin{ByRates: true}, Rates: &idnodev1.RatesMargin{}},
			[]string{"no margin for 2 identity counters: the backup records no issue rates (an older build took it)", "--ahead"},
			[]string{"margin by rates"}},
		{&idnodev1.RestoreResponse{Identities: 2, Ahead: &idnodev1.RestoreMargin{ByRates: true}, Rates: &idnodev1.RatesMargin{Recorded: true, TakenInFuture: true, TakenAtMs: 1_800_000_000_000, Factor: 2}},
			[]string{"warning: the backup was taken at 2027-01-15T08:00:00Z, after the leader's clock now (clock skew)", "x age 0s x 2"},
			nil},
	} {
		var b strings.Builder
		if err := restoreRisks(&b, c.resp); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("summary of %v:\n%s\nwant %q", c.resp, b.String(), w)
			}
		}
		for _, o := range c.omit {
			if strings.Contains(b.String(), o) {
				t.Errorf("summary of %v:\n%s\nsays %q", c.resp, b.String(), o)
			}
		}
	}
}

// Without --ahead a restore asks for a margin by rates for every kind left unset; --ahead 0
// asks for none, as before rates; --hilo-ahead alone leaves identities to the rates.
func TestRestoreMarginByRatesByDefault(t *testing.T) {
	zero, five := &idnodev1.CounterMargin{}, &idnodev1.CounterMargin{Add: 5}
	for _, c := range []struct {
		ahead, hilo *idnodev1.CounterMargin
		want        *idnodev1.RestoreMargin
	}{
		{nil, nil, &idnodev1.RestoreMargin{ByRates: true}},
		{zero, nil, &idnodev1.RestoreMargin{Identities: zero, Hilo: zero}},
		{nil, five, &idnodev1.RestoreMargin{Hilo: five, ByRates: true}},
		{five, zero, &idnodev1.RestoreMargin{Identities: five, Hilo: zero}},
	} {
		if got := restoreMargin(c.ahead, c.hilo); !proto.Equal(got, c.want) {
			t.Errorf("restoreMargin(%v, %v) = %v; want %v", c.ahead, c.hilo, got, c.want)
		}
	}
}
