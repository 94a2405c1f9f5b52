package hilopool

import (
	"fmt"
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

// take grants least..want numbers (1 <= least <= want) above `above` from segs: contiguous,
// from the lowest segment with at least least numbers above `above`, starting at its lowest
// such number. It returns a new list without the granted numbers (numbers at or below `above`
// stay), and ok false, with segs itself, if no segment has least numbers above `above`.
func take(segs []segment, want, least, above int64) (rest []segment, granted segment, ok bool) {
	for i, g := range segs {
		if g.High <= above {
			continue
		}
		start := max(g.Low, above+1) // above < g.High, so above+1 does not overflow
		n := g.High - start + 1
		if n < least {
			continue
		}
		granted = segment{Low: start, High: start + min(want, n) - 1}
		rest = make([]segment, 0, len(segs)+1)
		rest = append(rest, segs[:i]...)
		if g.Low < start {
			rest = append(rest, segment{Low: g.Low, High: start - 1})
		}
		if granted.High < g.High {
			rest = append(rest, segment{Low: granted.High + 1, High: g.High})
		}
		return append(rest, segs[i+1:]...), granted, true
	}
	return segs, segment{}, false
}

// bounded returns segs without its lowest segments beyond maxSegments: they leave the pool
// (gaps), so that grants that split segments, and reservations that land above numbers no
// client asks for any more, cannot grow a pool's file without end.
func bounded(segs []segment) []segment {
	return segs[max(len(segs)-maxSegments, 0):]
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
