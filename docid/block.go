package docid

import "iter"

// IdentityBlock is what one identity reservation got: the values First..Last except Skipped,
// those in between that someone claimed as "name/N" (ascending; usually none, so a block is
// consecutive unless claims fall inside it).
type IdentityBlock struct {
	First, Last int64
	Skipped     []int64
}

// All yields the block's values in order. It stops after Last rather than testing v <= Last
// after an increment, which would wrap for a block ending at the largest int64 and never end.
// An empty block (Last < First) yields nothing.
func (b IdentityBlock) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		if b.Last < b.First {
			return
		}
		skipped := b.Skipped
		for v := b.First; ; v++ {
			if len(skipped) > 0 && skipped[0] == v {
				skipped = skipped[1:]
			} else if !yield(v) {
				return
			}
			if v == b.Last {
				return
			}
		}
	}
}

// Len is how many values the block holds.
func (b IdentityBlock) Len() int64 {
	return b.Last - b.First + 1 - int64(len(b.Skipped))
}

// Within returns the block ended early when it steps over more than maxSkipped claimed
// values: it then ends at the last free value before the (maxSkipped+1)th, because an answer
// that lists every skipped value could outgrow a message. The values cut off stay reserved,
// a gap like the values of any lost answer. The block keeps at least First, which is free.
func (b IdentityBlock) Within(maxSkipped int) IdentityBlock {
	if len(b.Skipped) <= maxSkipped {
		return b
	}
	n, last := maxSkipped, b.Skipped[maxSkipped]-1
	for n > 0 && b.Skipped[n-1] == last {
		n, last = n-1, last-1
	}
	return IdentityBlock{First: b.First, Last: last, Skipped: b.Skipped[:n:n]}
}
