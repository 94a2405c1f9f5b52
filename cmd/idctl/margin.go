package main

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// marginFlag is a restore margin as --ahead and --hilo-ahead take it: a number added to each
// counter, a percentage of each counter's value (rounded up), or both
// (docs/decisions/0040-restore-margin.md).
type marginFlag struct {
	margin *idnodev1.CounterMargin // nil until set
}

func (f *marginFlag) String() string {
	if f == nil || f.margin == nil {
		return ""
	}
	return formatMargin(f.margin)
}

func (f *marginFlag) Set(v string) error {
	m, err := parseMargin(v)
	if err != nil {
		return err
	}
	f.margin = m
	return nil
}

// parseMargin reads N, P% or N+P%: whole numbers, at least 0, each at most the largest int64.
func parseMargin(s string) (*idnodev1.CounterMargin, error) {
	if s == "" {
		return nil, fmt.Errorf("%w, not %q", errMarginSyntax, s)
	}
	add, percent, both := strings.Cut(s, "+")
	if !both {
		if strings.HasSuffix(s, "%") {
			add, percent = "", s
		} else {
			add, percent = s, ""
		}
	}
	m := &idnodev1.CounterMargin{}
	var err error
	if add != "" || both {
		if m.Add, err = marginNumber(add, s); err != nil {
			return nil, err
		}
	}
	if percent != "" || both {
		p, ok := strings.CutSuffix(percent, "%")
		if !ok {
			return nil, fmt.Errorf("%w, not %q: the part after + is a percentage", errMarginSyntax, s)
		}
		if m.Percent, err = marginNumber(p, s); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// marginNumber reads one whole number of margin s: digits only, so no sign, space or base.
func marginNumber(digits, s string) (int64, error) {
	if strings.HasPrefix(digits, "-") {
		return 0, fmt.Errorf("margin %q is negative: a restore only skips numbers ahead, it never lowers a counter", s)
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Errorf("%w, not %q", errMarginSyntax, s)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("margin %q: %s is more than the largest counter, %d", s, digits, int64(1<<63-1))
	}
	return n, nil
}

// formatMargin writes m as parseMargin reads it.
func formatMargin(m *idnodev1.CounterMargin) string {
	switch {
	case m.GetPercent() == 0:
		return strconv.FormatInt(m.GetAdd(), 10)
	case m.GetAdd() == 0:
		return strconv.FormatInt(m.GetPercent(), 10) + "%"
	}
	return fmt.Sprintf("%d+%d%%", m.GetAdd(), m.GetPercent())
}

// restoreMargin is the margin a restore asks for --ahead and --hilo-ahead (nil: not given).
// --hilo-ahead defaults to --ahead; without --ahead, every kind left unset takes its margin
// from the backup's rates, so --ahead 0 is the one way to ask for none
// (docs/decisions/0044-restore-margin-by-rates.md).
func restoreMargin(ahead, hiloAhead *idnodev1.CounterMargin) *idnodev1.RestoreMargin {
	return &idnodev1.RestoreMargin{Identities: ahead, Hilo: cmp.Or(hiloAhead, ahead), ByRates: ahead == nil}
}
