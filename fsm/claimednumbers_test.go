package fsm

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// claimedNumbers holds what a plain set holds, across chunk splits and emptied chunks, and
// walks it in order from any number.
func TestClaimedNumbersIsASortedSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 2))
	var c claimedNumbers
	want := map[int64]bool{}
	for step := range 20_000 {
		n := rng.Int64N(8 * claimedChunk)
		if step%3 == 2 {
			if got := c.remove(n); got != want[n] {
				t.Fatalf("step %d: remove(%d) = %v, want %v", step, n, got, want[n])
			}
			delete(want, n)
		} else {
			c.add(n)
			want[n] = true
		}
		if step%997 != 0 {
			continue
		}
		from := rng.Int64N(8 * claimedChunk)
		var wantFrom []int64
		for _, v := range slices.Sorted(maps.Keys(want)) {
			if v >= from {
				wantFrom = append(wantFrom, v)
			}
		}
		if got := slices.Collect(c.from(from)); !slices.Equal(got, wantFrom) {
			t.Fatalf("step %d: from(%d) = %d numbers, want %d", step, from, len(got), len(wantFrom))
		}
		for i, chunk := range c.chunks {
			if len(chunk) == 0 || len(chunk) > claimedChunk {
				t.Fatalf("step %d: chunk %d holds %d numbers", step, i, len(chunk))
			}
		}
	}
	if c.empty() != (len(want) == 0) {
		t.Fatalf("empty() = %v with %d numbers", c.empty(), len(want))
	}
}
