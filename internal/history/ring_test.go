package history

import (
	"slices"
	"testing"
)

// A ring holds at most its capacity, oldest first, and a push past it drops the oldest.
func TestRingKeepsTheNewestUpToItsCapacity(t *testing.T) {
	r := newRing[int](3)
	if got := r.appendTo(nil); len(got) != 0 || r.len() != 0 {
		t.Fatalf("new ring holds %v (len %d); want nothing", got, r.len())
	}
	for i, want := range [][]int{{1}, {1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 5}, {4, 5, 6}, {5, 6, 7}} {
		r.push(i + 1)
		if got := r.appendTo(nil); !slices.Equal(got, want) || r.len() != len(want) {
			t.Errorf("after pushing 1..%d: %v (len %d); want %v", i+1, got, r.len(), want)
		}
	}
	if cap(r.values) != 3 {
		t.Errorf("the ring's storage grew to %d; want it to stay at 3", cap(r.values))
	}
}
