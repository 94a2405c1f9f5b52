package fsm

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Margin is how far above a backup's value a restore sets a counter: Add plus Percent per cent
// of the value, rounded up. It skips the numbers the backup's cluster may have issued after the
// backup was taken (docs/decisions/0040-restore-margin.md).
type Margin struct {
	Add     int64
	Percent int64
}

// Skipped is the fewest and the most numbers a margin put above a backup's counters of a kind.
type Skipped struct {
	Min, Max int64
}

// MarginSkipped says what Ahead skipped, for identity counters and for HiLo maxima.
type MarginSkipped struct {
	Identities, HiLo Skipped
}

// of is the margin for a counter at value v (v ≥ 0); false when it passes math.MaxInt64.
func (m Margin) of(v int64) (int64, bool) {
	// ceil(v * Percent / 100) in 128 bits: v * Percent may pass 64 bits on its own.
	hi, lo := bits.Mul64(uint64(v), uint64(m.Percent))
	lo, carry := bits.Add64(lo, 99, 0)
	hi += carry
	if hi >= 100 {
		return 0, false // the quotient has more than 64 bits
	}
	share, _ := bits.Div64(hi, lo, 100)
	if share > math.MaxInt64 || int64(share) > math.MaxInt64-m.Add {
		return 0, false
	}
	return m.Add + int64(share), true
}

// valid refuses a negative part: a margin only skips numbers, it never lowers a counter.
func (m Margin) valid(kind string) error {
	if m.Add < 0 || m.Percent < 0 {
		return fmt.Errorf("%w: the %s margin %d + %d%%", ErrNegativeValue, kind, m.Add, m.Percent)
	}
	return nil
}

// Ahead raises every identity counter of the backup by the identities margin and every HiLo
// Max by the hilo margin, so a restore of b sets the cluster's floors that far above the
// backup's values. It is all or nothing: a negative margin, or a counter that the margin would
// take past math.MaxInt64 (named in the error), leaves b as it was.
func (b *Backup) Ahead(identities, hilo Margin) (MarginSkipped, error) {
	var out MarginSkipped
	if err := identities.valid("identity"); err != nil {
		return out, err
	}
	if err := hilo.valid("HiLo"); err != nil {
		return out, err
	}
	ids := make([]int64, len(b.Identities))
	for i, id := range b.Identities {
		m, err := marginFor(identities, id.Value, func() string {
			return fmt.Sprintf("identity %q of database %s", id.Name, id.Database)
		})
		if err != nil {
			return out, err
		}
		ids[i] = m
	}
	his := make([]int64, len(b.HiLo))
	for i, h := range b.HiLo {
		m, err := marginFor(hilo, h.Max, func() string {
			return fmt.Sprintf("HiLo tag %q of database %s", h.Tag, h.Database)
		})
		if err != nil {
			return out, err
		}
		his[i] = m
	}
	for i, m := range ids {
		b.Identities[i].Value += m
	}
	for i, m := range his {
		b.HiLo[i].Max += m
	}
	return MarginSkipped{Identities: spread(ids), HiLo: spread(his)}, nil
}

// marginFor is m's margin for a counter at v, or an error naming the counter when v plus the
// margin passes math.MaxInt64.
func marginFor(m Margin, v int64, counter func() string) (int64, error) {
	add, ok := m.of(v)
	if !ok || add > math.MaxInt64-v {
		return 0, fmt.Errorf("%w: %s is at %d, and a margin of %d + %d%% takes it past %d",
			ErrCounterOverflow, counter(), v, m.Add, m.Percent, int64(math.MaxInt64))
	}
	return add, nil
}

// spread is the fewest and the most of margins (zero for none).
func spread(margins []int64) Skipped {
	if len(margins) == 0 {
		return Skipped{}
	}
	return Skipped{Min: slices.Min(margins), Max: slices.Max(margins)}
}
