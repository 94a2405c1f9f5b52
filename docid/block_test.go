package docid

import (
	"math"
	"slices"
	"testing"
)

func TestIdentityBlockLeavesSkippedValuesOut(t *testing.T) {
	for _, tc := range []struct {
		block IdentityBlock
		want  []int64
	}{
		{IdentityBlock{First: 1, Last: 3}, []int64{1, 2, 3}},
		{IdentityBlock{First: 3, Last: 8, Skipped: []int64{4, 6}}, []int64{3, 5, 7, 8}},
		{IdentityBlock{First: 5, Last: 7, Skipped: []int64{6, 7}}, []int64{5}},
	} {
		got := slices.Collect(tc.block.All())
		if !slices.Equal(got, tc.want) || tc.block.Len() != int64(len(tc.want)) {
			t.Errorf("%+v: All = %v, Len = %d; want %v", tc.block, got, tc.block.Len(), tc.want)
		}
	}
}

// A block ending at the largest int64 used to loop for ever (v++ wrapped
// before v <= Last failed). The walk is cut off after a few more values than the block holds,
// so a regression fails instead of hanging.
func TestIdentityBlockEndsAtMaxInt64(t *testing.T) {
	const max = math.MaxInt64
	for _, tc := range []struct {
		block IdentityBlock
		want  []int64
	}{
		{IdentityBlock{First: max - 2, Last: max}, []int64{max - 2, max - 1, max}},
		{IdentityBlock{First: max, Last: max}, []int64{max}},
		{IdentityBlock{First: max - 2, Last: max, Skipped: []int64{max - 1, max}}, []int64{max - 2}},
		{IdentityBlock{First: math.MinInt64, Last: math.MinInt64 + 1}, []int64{math.MinInt64, math.MinInt64 + 1}},
		{IdentityBlock{First: 5, Last: 4}, nil},
	} {
		var got []int64
		for v := range tc.block.All() {
			if got = append(got, v); len(got) > len(tc.want)+2 {
				break
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: All = %v, want %v", tc.block, got, tc.want)
		}
	}
}

// Within ends a block that steps over too many claims at the last free value before the one
// too many, keeps a block that steps over few as it is, and never ends before First.
func TestIdentityBlockWithin(t *testing.T) {
	for _, tc := range []struct {
		in   IdentityBlock
		max  int
		want IdentityBlock
	}{
		{IdentityBlock{First: 1, Last: 9, Skipped: []int64{3, 5}}, 2, IdentityBlock{First: 1, Last: 9, Skipped: []int64{3, 5}}},
		{IdentityBlock{First: 1, Last: 9, Skipped: []int64{3, 5, 7}}, 2, IdentityBlock{First: 1, Last: 6, Skipped: []int64{3, 5}}},
		{IdentityBlock{First: 1, Last: 9, Skipped: []int64{3, 4, 5}}, 2, IdentityBlock{First: 1, Last: 2, Skipped: []int64{}}},
		{IdentityBlock{First: 1, Last: 9, Skipped: []int64{2, 3, 4, 5, 6, 7, 8}}, 0, IdentityBlock{First: 1, Last: 1, Skipped: []int64{}}},
		{IdentityBlock{First: 10, Last: 20, Skipped: []int64{11, 12, 14, 15, 16, 17, 18, 19}}, 3, IdentityBlock{First: 10, Last: 13, Skipped: []int64{11, 12}}},
	} {
		got := tc.in.Within(tc.max)
		if got.First != tc.want.First || got.Last != tc.want.Last || !slices.Equal(got.Skipped, tc.want.Skipped) {
			t.Errorf("%+v.Within(%d) = %+v; want %+v", tc.in, tc.max, got, tc.want)
		}
		if len(got.Skipped) > tc.max || got.Last < got.First {
			t.Errorf("%+v.Within(%d) = %+v: steps over too many, or is empty", tc.in, tc.max, got)
		}
	}
}
