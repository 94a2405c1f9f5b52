package series

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// maxFormatLength bounds a format: every issued ID is at most this plus the number's digits.
const maxFormatLength = 64

// maxWidth is the widest zero padding of {n}: 2^63−1 has 19 digits.
const maxWidth = 19

// part is one piece of a parsed format: a literal, or a placeholder.
type part struct {
	kind    partKind
	literal string
	width   int // {n:0W}; 0 for {n}
}

type partKind uint8

const (
	partLiteral partKind = iota
	partYear
	partMonth
	partNumber
)

// format is a parsed series format, e.g. "INV-{year}-{n:06}".
type format []part

// parseFormat checks a format against its rules and the series' period: printable ASCII, no
// '\', '|', '{' or '}' outside the placeholders {year}, {month}, {n} and {n:0W} (1 ≤ W ≤ 19),
// {n} exactly once and the others at most once, and the placeholders the period needs so that
// no ID repeats across periods ({year} for a yearly series, {year} and {month} for a monthly one).
func parseFormat(s string, period raftv1.SeriesPeriod) (format, error) {
	if len(s) > maxFormatLength {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrBadFormat, len(s), maxFormatLength)
	}
	var f format
	var seen [partNumber + 1]int
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%w: '{' at byte %d is not closed; placeholders are {year}, {month}, {n} and {n:0W}", ErrBadFormat, i)
			}
			p, err := parsePlaceholder(s[i+1 : i+end])
			if err != nil {
				return nil, err
			}
			seen[p.kind]++
			f = append(f, p)
			i += end + 1
		case c < 0x20 || c > 0x7e || c == '\\' || c == '|' || c == '}':
			return nil, fmt.Errorf("%w: byte %d (%q) is not allowed; use printable ASCII other than '\\', '|', '{' and '}'", ErrBadFormat, i, c)
		default:
			j := i
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x7e && !strings.ContainsRune(`\|{}`, rune(s[j])) {
				j++
			}
			f = append(f, part{kind: partLiteral, literal: s[i:j]})
			i = j
		}
	}
	switch {
	case seen[partNumber] != 1:
		return nil, fmt.Errorf("%w: {n} must appear exactly once, found %d times", ErrBadFormat, seen[partNumber])
	case seen[partYear] > 1 || seen[partMonth] > 1:
		return nil, fmt.Errorf("%w: {year} and {month} may appear at most once each", ErrBadFormat)
	case period == raftv1.SeriesPeriod_SERIES_PERIOD_YEAR && seen[partYear] == 0:
		return nil, fmt.Errorf("%w: a yearly series needs {year} in its format, or its IDs would repeat every year", ErrBadFormat)
	case period == raftv1.SeriesPeriod_SERIES_PERIOD_MONTH && (seen[partYear] == 0 || seen[partMonth] == 0):
		return nil, fmt.Errorf("%w: a monthly series needs {year} and {month} in its format, or its IDs would repeat", ErrBadFormat)
	}
	return f, nil
}

// parsePlaceholder reads the inside of {...}.
func parsePlaceholder(s string) (part, error) {
	switch s {
	case "year":
		return part{kind: partYear}, nil
	case "month":
		return part{kind: partMonth}, nil
	case "n":
		return part{kind: partNumber}, nil
	}
	// Only digits are accepted: Atoi would also take "+1", and {n:0+1} would be stored as
	// written but print back as {n:01}.
	digits, ok := strings.CutPrefix(s, "n:0")
	if ok && len(digits) >= 1 && len(digits) <= 2 && digits[0] != '0' && strings.Trim(digits, "0123456789") == "" {
		if w, err := strconv.Atoi(digits); err == nil && w >= 1 && w <= maxWidth {
			return part{kind: partNumber, width: w}, nil
		}
	}
	return part{}, fmt.Errorf("%w: unknown placeholder {%s}; use {year}, {month}, {n} or {n:0W} with 1 ≤ W ≤ %d", ErrBadFormat, s, maxWidth)
}

// String is the format as written: parsing it again gives the same parts.
func (f format) String() string {
	return f.write(func(b *strings.Builder, p part) {
		switch p.kind {
		case partYear:
			b.WriteString("{year}")
		case partMonth:
			b.WriteString("{month}")
		case partNumber:
			if p.width == 0 {
				b.WriteString("{n}")
			} else {
				fmt.Fprintf(b, "{n:0%d}", p.width)
			}
		}
	})
}

// render prints number n issued at timeMs (UTC).
func (f format) render(timeMs, n int64) string {
	t := time.UnixMilli(timeMs).UTC()
	return f.write(func(b *strings.Builder, p part) {
		switch p.kind {
		case partYear:
			fmt.Fprintf(b, "%04d", t.Year())
		case partMonth:
			fmt.Fprintf(b, "%02d", int(t.Month()))
		case partNumber:
			fmt.Fprintf(b, "%0*d", p.width, n)
		}
	})
}

// write joins the parts: the literals as they are, each placeholder as placeholder writes it.
func (f format) write(placeholder func(b *strings.Builder, p part)) string {
	var b strings.Builder
	for _, p := range f {
		if p.kind == partLiteral {
			b.WriteString(p.literal)
		} else {
			placeholder(&b, p)
		}
	}
	return b.String()
}

// periodKey is the period an entry at timeMs falls in: "" (no periods), "2026" or "2026-03".
func periodKey(period raftv1.SeriesPeriod, timeMs int64) string {
	t := time.UnixMilli(timeMs).UTC()
	switch period {
	case raftv1.SeriesPeriod_SERIES_PERIOD_YEAR:
		return fmt.Sprintf("%04d", t.Year())
	case raftv1.SeriesPeriod_SERIES_PERIOD_MONTH:
		return fmt.Sprintf("%04d-%02d", t.Year(), int(t.Month()))
	}
	return ""
}
