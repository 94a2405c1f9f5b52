package main

import (
	"fmt"
	"slices"
)

// counterCheck compares the values a run obtained from a counter it does not run itself (the
// etcd CAS counter, a PostgreSQL sequence) with how far that counter moved during the run:
// every value from start+1 to end must have been handed out exactly once.
type counterCheck struct {
	Key          string `json:"key"`
	Uncertain    int64  `json:"uncertain"`     // calls that failed with an unknown outcome: they may have moved the counter
	CounterStart int64  `json:"counter_start"` // value before the run
	CounterEnd   int64  `json:"counter_end"`   // value after the run
	Successes    int64  `json:"successes"`
	Verified     bool   `json:"verified"`
	Verdict      string `json:"verdict"`
}

// checkCounter judges won (per caller, the values it obtained) against the counter key's move
// from start to end. Values missing from won are allowed only as many as calls were uncertain.
func checkCounter(key string, start, end, uncertain int64, won [][]int64) counterCheck {
	var all []int64
	for _, w := range won {
		all = append(all, w...)
	}
	slices.Sort(all)
	chk := counterCheck{Key: key, Uncertain: uncertain, CounterStart: start, CounterEnd: end, Successes: int64(len(all))}
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			dups++
		}
	}
	seen := slices.Compact(all)
	advanced := end - start
	gaps := advanced - int64(len(seen))
	switch {
	case dups > 0:
		chk.Verdict = fmt.Sprintf("%d values were handed out twice", dups)
	case len(seen) > 0 && (seen[0] <= start || seen[len(seen)-1] > end):
		chk.Verdict = fmt.Sprintf("values %d…%d fall outside the counter's movement %d→%d", seen[0], seen[len(seen)-1], start, end)
	case gaps == 0:
		chk.Verified = true
		chk.Verdict = fmt.Sprintf("successes %d == counter advance %d→%d: no duplicates, no gaps", chk.Successes, start, end)
	case gaps > 0 && gaps <= uncertain:
		chk.Verdict = fmt.Sprintf("counter advanced by %d but only %d successes were seen; the %d missing values are within the %d calls that failed with an unknown outcome",
			advanced, chk.Successes, gaps, uncertain)
	default:
		chk.Verdict = fmt.Sprintf("counter advanced by %d (%d→%d) but %d successes were seen (another writer on %s?)", advanced, start, end, chk.Successes, key)
	}
	return chk
}
