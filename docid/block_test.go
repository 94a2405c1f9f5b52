package docid

import (
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
