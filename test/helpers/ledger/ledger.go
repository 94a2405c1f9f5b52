// Package ledger records every answer a test's clients were given (identity blocks, HiLo
// ranges, IDs of any kind), each with a stamp saying when, and finds what a crash broke: a
// number or ID handed out twice. The power-cut and crash-state suites share it; each stamps
// answers its own way (a cut's epoch, a recording's position).
package ledger

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// Span is a range of numbers handed out, with the stamp of its answer.
type Span struct {
	Low, High, Stamp int64
}

// idKey is an ID of one kind ("server-side ID", "numeric ID").
type idKey struct{ kind, id string }

// Ledger is every answer recorded, safe for concurrent use.
type Ledger struct {
	describe   func(stamp int64) string
	mu         sync.Mutex
	identities []Span
	hilo       []Span
	ids        map[idKey]int64 // → stamp
	perKind    map[string]int
	dups       []string // IDs recorded twice
	acks, errs int
}

// New returns an empty ledger; describe says when a stamp was in a repeat's text ("before
// cut 2"), so that a failure names the moments it concerns.
func New(describe func(stamp int64) string) *Ledger {
	return &Ledger{describe: describe, ids: map[idKey]int64{}, perKind: map[string]int{}}
}

// Identity records an identity block [first, last].
func (l *Ledger) Identity(first, last, stamp int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.identities = append(l.identities, Span{first, last, stamp})
	l.acks++
}

// HiLo records a HiLo range [low, high].
func (l *Ledger) HiLo(low, high, stamp int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hilo = append(l.hilo, Span{low, high, stamp})
	l.acks++
}

// ID records an ID of a kind; one recorded before is a repeat.
func (l *Ledger) ID(kind, id string, stamp int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := idKey{kind, id}
	if first, ok := l.ids[k]; ok {
		l.dups = append(l.dups, l.repeatText(k, first, stamp))
	} else {
		l.perKind[kind]++
	}
	l.ids[k] = stamp
	l.acks++
}

func (l *Ledger) repeatText(k idKey, first, again int64) string {
	return fmt.Sprintf("%s %s (first %s, again %s)", k.kind, k.id, l.describe(first), l.describe(again))
}

// Answered counts an answer a caller checks itself (a series entry), so that Acked counts
// every answer.
func (l *Ledger) Answered() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acks++
}

// Failed counts a call that had no answer.
func (l *Ledger) Failed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs++
}

// Acked is how many answers were recorded.
func (l *Ledger) Acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acks
}

// Failures is how many calls had no answer.
func (l *Ledger) Failures() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errs
}

// IDs is how many distinct IDs of a kind were recorded.
func (l *Ledger) IDs(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.perKind[kind]
}

// Until is what a crash just after stamp must keep: every answer stamped at or before it.
// Answers after it may rest on a sync the crash prevented.
func (l *Ledger) Until(stamp int64) *Ledger {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := New(l.describe)
	keep := func(spans []Span) []Span {
		return slices.DeleteFunc(slices.Clone(spans), func(s Span) bool { return s.Stamp > stamp })
	}
	p.identities, p.hilo = keep(l.identities), keep(l.hilo)
	for k, s := range l.ids {
		if s <= stamp {
			p.ids[k] = s
			p.perKind[k.kind]++
		}
	}
	p.acks = len(p.identities) + len(p.hilo) + len(p.ids)
	return p
}

// Maxima are the highest identity and HiLo high recorded: a cluster that comes back from a
// crash must hand out only numbers above them.
func (l *Ledger) Maxima() (identity, hilo int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.identities {
		identity = max(identity, s.High)
	}
	for _, s := range l.hilo {
		hilo = max(hilo, s.High)
	}
	return identity, hilo
}

// Mark is where the ledger's identity blocks and HiLo ranges stood at a moment.
type Mark struct{ identities, hilo int }

// Mark returns where the ledger stands now, for LowestSince.
func (l *Ledger) Mark() Mark {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Mark{len(l.identities), len(l.hilo)}
}

// LowestSince are the lowest identity and HiLo low recorded after m (0: none).
func (l *Ledger) LowestSince(m Mark) (identity, hilo int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lowest := func(spans []Span) (low int64) {
		for _, s := range spans {
			if low == 0 || s.Low < low {
				low = s.Low
			}
		}
		return low
	}
	return lowest(l.identities[m.identities:]), lowest(l.hilo[m.hilo:])
}

// Repeats lists every number or ID handed out twice in l and the later ledgers taken as
// one (the answers after a restart): overlapping identity blocks or HiLo ranges, an ID
// recorded twice.
func (l *Ledger) Repeats(later ...*Ledger) []string {
	var out []string
	seen := map[idKey]int64{}
	var identities, hilo []Span
	for _, x := range append([]*Ledger{l}, later...) {
		x.mu.Lock()
		out = append(out, x.dups...)
		for k, s := range x.ids {
			if first, ok := seen[k]; ok {
				out = append(out, l.repeatText(k, first, s))
			}
			seen[k] = s
		}
		identities = append(identities, x.identities...)
		hilo = append(hilo, x.hilo...)
		x.mu.Unlock()
	}
	for _, k := range []struct {
		what  string
		spans []Span
	}{{"identity block", identities}, {"HiLo range", hilo}} {
		slices.SortFunc(k.spans, func(a, b Span) int { return cmp.Compare(a.Low, b.Low) })
		for i := 1; i < len(k.spans); i++ {
			a, b := k.spans[i-1], k.spans[i]
			if b.Low <= a.High {
				out = append(out, fmt.Sprintf("%s [%d, %d] (%s) and [%d, %d] (%s) overlap",
					k.what, a.Low, a.High, l.describe(a.Stamp), b.Low, b.High, l.describe(b.Stamp)))
			}
		}
	}
	return out
}
