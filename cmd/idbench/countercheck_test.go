package main

import (
	"strings"
	"testing"
)

func TestCheckCounter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start, end int64
		uncertain  int64
		won        [][]int64
		verified   bool
		verdict    string // part of it
	}{
		{"every value once", 10, 15, 0, [][]int64{{11, 13}, {12, 15}, {14}}, true, "successes 5 == counter advance 10→15"},
		{"nothing obtained, nothing moved", 7, 7, 0, [][]int64{nil, nil}, true, "successes 0 == counter advance 7→7"},
		{"a value twice", 0, 3, 0, [][]int64{{1, 2}, {2, 3}}, false, "1 values were handed out twice"},
		{"a value from before the run", 5, 7, 0, [][]int64{{5, 6}, {7}}, false, "values 5…7 fall outside the counter's movement 5→7"},
		{"a gap covered by a failed call", 0, 4, 1, [][]int64{{1, 2}, {4}}, false, "the 1 missing values are within the 1 calls that failed with an unknown outcome"},
		{"a gap nobody explains", 0, 4, 0, [][]int64{{1, 2}, {4}}, false, "counter advanced by 4 (0→4) but 3 successes were seen (another writer on k?)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chk := checkCounter("k", tc.start, tc.end, tc.uncertain, tc.won)
			if chk.Verified != tc.verified || !strings.Contains(chk.Verdict, tc.verdict) {
				t.Errorf("checkCounter = verified %v, %q; want verified %v, a verdict containing %q", chk.Verified, chk.Verdict, tc.verified, tc.verdict)
			}
		})
	}
}
