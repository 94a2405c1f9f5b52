package history

import (
	"fmt"
	"strings"
)

// Answer is what GET /v1/history answers (docs/console.md, "Graphs of the last hour"): the
// sample times, the series asked for, and the leadership changes to mark on their time axis.
type Answer struct {
	IntervalMs    int64        `json:"intervalMs"`
	Capacity      int          `json:"capacity"` // the most samples a line holds
	Times         []int64      `json:"times"`    // Unix milliseconds, oldest first
	Series        []SeriesData `json:"series"`
	LeaderChanges []Mark       `json:"leaderChanges"`
}

// UnknownSeriesError is a series the node does not keep.
type UnknownSeriesError struct{ Name string }

func (e UnknownSeriesError) Error() string {
	return fmt.Sprintf("the node keeps no series %q; it keeps %s", e.Name, strings.Join(Names(), ", "))
}

// Read answers for the named series, every one the node keeps when none is named.
func (r *Recorder) Read(names ...string) (Answer, error) {
	if len(names) == 0 {
		names = Names()
	}
	times, data, err := r.store.read(names...)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{IntervalMs: r.interval.Milliseconds(), Capacity: r.store.capacity, Times: times, Series: data, LeaderChanges: []Mark{}}
	if r.sources.LeaderChanges != nil {
		a.LeaderChanges = append(a.LeaderChanges, r.sources.LeaderChanges()...)
	}
	return a, nil
}
