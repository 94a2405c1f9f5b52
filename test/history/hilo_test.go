package history

import (
	"strings"
	"testing"
)

// With HiLo pools every node grants from its own pool, so ranges come in no order: only
// overlaps count, whichever came first.
func TestHiLoRangesFromPoolsInAnyOrder(t *testing.T) {
	r := New()
	// Pools A 1 … 1024, B 1025 … 2048, C 2049 … 3072; each node grants upwards in its own.
	for i := range int64(4) {
		r.HiLoRange("orders", 2049+32*i, 2080+32*i) // C
		r.HiLoRange("orders", 1+32*i, 32+32*i)      // A: below everything granted so far
		r.HiLoRange("Orders", 1025+32*i, 1056+32*i) // B
	}
	if rep := r.Check(checkTimeout); !rep.OK() || rep.HiLoRanges != 12 {
		t.Fatalf("disjoint ranges of three pools: %v (%d ranges)", rep.Err(), rep.HiLoRanges)
	}
	r.HiLoRange("invoices", 1, 32)
	if got := r.HiLoTags(); len(got) != 2 || got[0] != "invoices" || got[1] != "orders" {
		t.Errorf("HiLoTags() = %q, want [invoices orders]", got)
	}
	if got := r.MaxHiLo("orders"); got != 2176 {
		t.Errorf("MaxHiLo(orders) = %d, want 2176 (C's newest range, not the last recorded)", got)
	}
	// A bad pool: B grants again what A granted first, lower than B's newest range.
	r.HiLoRange("orders", 20, 40)
	rep := r.Check(checkTimeout)
	if rep.Duplicates != 21 || !strings.Contains(rep.Err().Error(), "range [20, 40] repeats") {
		t.Fatalf("a range inside another pool's grants: duplicates = %d (%v), want 21", rep.Duplicates, rep.Err())
	}
}

// A return must not hide numbers that were granted twice while the returning client still held
// them: the server granted a duplicate, whoever used it.
func TestHiLoReturnCannotHideADuplicate(t *testing.T) {
	for _, tc := range []struct {
		name string
		last int64
	}{
		{"tail returned", 10},
		{"whole range returned", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			r.HiLoRange("orders", 1, 32)
			r.HiLoRange("orders", 20, 40) // 20 … 32 granted again: a bad pool
			r.HiLoReturn("orders", 32, tc.last)
			if rep := r.Check(checkTimeout); rep.Duplicates != 13 {
				t.Fatalf("duplicates = %d (%v), want the 13 numbers 20 … 32 granted twice", rep.Duplicates, rep.Err())
			}
		})
	}
}

// A return that went to a node whose pool did not grant the range changes nothing there: the
// tail is a gap, and a history where it is never granted again is as good as one where the
// granting pool hands it out again.
func TestHiLoReturnedTailNeedNotComeBack(t *testing.T) {
	r := New()
	r.HiLoRange("orders", 1, 32)
	r.HiLoReturn("orders", 32, 7)
	r.HiLoRange("orders", 33, 64)
	r.HiLoReturn("orders", 99, 50) // no range ends at 99: nothing to cut
	r.HiLoRange("orders", 60, 70)  // so 60 … 64 are still held: a duplicate
	if rep := r.Check(checkTimeout); rep.Duplicates != 5 {
		t.Fatalf("duplicates = %d (%v), want 5: 60 … 64 granted twice", rep.Duplicates, rep.Err())
	}
}
