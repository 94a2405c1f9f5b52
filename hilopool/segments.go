package hilopool

import (
	"fmt"
	"slices"
	"sort"
)

// segment is the numbers Low..High, both included. In a pool, segments are sorted, disjoint
// and never adjacent (adjacent ones are merged), and Low >= 1.
type segment struct {
	Low  int64 `json:"low"`
	High int64 `json:"high"`
}

func (g segment) size() int64 { return g.High - g.Low + 1 }

func (g segment) overlaps(o segment) bool { return g.Low <= o.High && o.Low <= g.High }

func (g segment) String() string { return fmt.Sprintf("%d..%d", g.Low, g.High) }

// total is how many numbers segs hold. It cannot overflow: the segments are disjoint sets of
// positive int64s.
func total(segs []segment) int64 {
	var n int64
	for _, g := range segs {
		n += g.size()
	}
	return n
}

// insert returns a new list: segs with g added in order, merged with a neighbour it touches.
// segs is not modified, so a caller can still discard the result if the write fails. g must
// not overlap segs: that would put a number in the pool twice.
func insert(segs []segment, g segment) ([]segment, error) {
	// i is the first segment not entirely below g.
	i := sort.Search(len(segs), func(j int) bool { return segs[j].High >= g.Low })
	if i < len(segs) && segs[i].overlaps(g) {
		return nil, fmt.Errorf("%v overlaps %v, already in the pool", g, segs[i])
	}
	out := make([]segment, 0, len(segs)+1)
	out = append(out, segs[:i]...)
	if n := len(out); n > 0 && out[n-1].High+1 == g.Low {
		g.Low = out[n-1].Low
		out = out[:n-1]
	}
	rest := segs[i:]
	// segs[i].Low > g.High here, so g.High+1 does not overflow.
	if len(rest) > 0 && g.High+1 == rest[0].Low {
		g.High = rest[0].High
		rest = rest[1:]
	}
	out = append(out, g)
	return append(out, rest...), nil
}

// take grants up to want (>= 1) numbers above `above` from the front of segs: contiguous, from
// the lowest segment with a number above `above`, so shorter than want at that segment's end.
// It returns a new list without the granted numbers and without every number at or below
// `above` (gaps: no client may get them any more), and ok false if nothing is above `above`.
func take(segs []segment, want, above int64) (rest []segment, granted segment, ok bool) {
	i := slices.IndexFunc(segs, func(g segment) bool { return g.High > above })
	if i < 0 {
		return []segment{}, segment{}, false
	}
	from := segs[i]
	low := max(from.Low, above+1) // above < from.High, so above+1 does not overflow
	granted = segment{Low: low, High: low + min(want-1, from.High-low)}
	rest = make([]segment, 0, len(segs)-i)
	if granted.High < from.High {
		rest = append(rest, segment{Low: granted.High + 1, High: from.High})
	}
	return append(rest, segs[i+1:]...), granted, true
}

// checkSegments reports why segs is not a valid pool, or nil.
func checkSegments(segs []segment) error {
	for i, g := range segs {
		if g.Low < 1 || g.High < g.Low {
			return fmt.Errorf("segment %v: want 1 <= low <= high", g)
		}
		if i > 0 && segs[i-1].High >= g.Low-1 {
			return fmt.Errorf("segments %v and %v are out of order, overlap or touch", segs[i-1], g)
		}
	}
	return nil
}
