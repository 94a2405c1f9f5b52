// Package hilo holds the HiLo range-size policy and, for clients, the generator that prints
// IDs from reserved ranges.
//
// A generator's Close gives back every number it did not hand out, when the cluster can take
// it: the prefetched range whole, then the current range's tail, as long as they are the
// newest ranges of the tag and the prefetched one starts right after the current one. A range
// goes back only with its grant_id, once (package hilogrant); what cannot go back is a gap.
package hilo

import "time"

// Policy decides the size of the next HiLo range from how fast the caller used its last one:
// ranges grow for busy callers so they rarely go to Raft, and shrink for idle ones
// so a crash wastes little.
type Policy struct {
	Min, Max    int64         // bounds on a range's size
	GrowWithin  time.Duration // the next range doubles when the previous one is younger than this
	ShrinkAfter time.Duration // the next range halves when the previous one is older than this
}

// DefaultPolicy is idnode's policy. A range holds 32 to 1,048,576 numbers; the next range is
// twice as large when the caller got its previous range less than 30 s ago, and half as large
// when it got it more than 60 s ago.
var DefaultPolicy = Policy{Min: 32, Max: 1 << 20, GrowWithin: 30 * time.Second, ShrinkAfter: 60 * time.Second}

// Capacity returns the size of the next range. lastSize is the caller's previous range size
// (0 if none); lastRangeAt is when it got that range (zero if unknown).
func (p Policy) Capacity(lastSize int64, lastRangeAt, now time.Time) int64 {
	lastSize = min(max(lastSize, 0), p.Max) // a caller's number: doubling it must not overflow
	size := max(lastSize, p.Min)
	if !lastRangeAt.IsZero() {
		switch age := now.Sub(lastRangeAt); {
		case age < p.GrowWithin:
			size = max(lastSize, p.Min/2) * 2
		case age > p.ShrinkAfter:
			size = lastSize / 2
		}
	}
	return min(max(size, p.Min), p.Max)
}
