// Package history keeps the last hour of a node's own figures in memory, for the console's
// graphs: IDs handed out per second by strategy, identity latency, the commit index's rate,
// the data dir's free bytes and the clock offset of each node. Each line of a graph is a ring
// of a fixed number of samples, so the memory it takes is bounded whatever the node's uptime
// (docs/console.md, "Graphs of the last hour").
package history

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Defaults: one sample every 10 s, an hour of them.
const (
	DefaultInterval = 10 * time.Second
	DefaultSamples  = 360
	// maxLinesPerSeries bounds the lines of a series whose lines come and go (a clock offset
	// per node): a cluster of more nodes shows the first it saw.
	maxLinesPerSeries = 16
)

// Series is a graph the node keeps: its lines share its unit.
type Series struct {
	Name string
	Unit string
}

// The series the node keeps, in the order the console draws them.
var (
	IDs             = Series{"ids", "IDs/s"}
	IdentityLatency = Series{"identity_latency", "ms"}
	CommitRate      = Series{"commit_rate", "entries/s"}
	DiskFree        = Series{"disk_free", "bytes"}
	ClockOffset     = Series{"clock_offset", "ms"}
	kept            = []Series{IDs, IdentityLatency, CommitRate, DiskFree, ClockOffset}
)

// Store holds the samples: the time of each, and each line's value then (NaN: none).
type Store struct {
	mu       sync.Mutex
	capacity int
	times    *ring[int64] // Unix milliseconds
	// lines holds each series' lines by name, in the order they first had a value.
	lines map[string][]*line
}

type line struct {
	name   string
	values *ring[float64]
}

// NewStore keeps the last samples (at least one) of every series.
func NewStore(samples int) *Store {
	samples = max(samples, 1)
	return &Store{capacity: samples, times: newRing[int64](samples), lines: map[string][]*line{}}
}

// Sample is one sample's values: by series, then by line.
type Sample map[Series]map[string]float64

// Record adds a sample taken at t. A line the sample has no value for gets NaN; a line seen
// for the first time gets NaN for the samples before it.
func (s *Store) Record(t time.Time, sample Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.times.len()
	s.times.push(t.UnixMilli())
	for _, series := range kept {
		values := sample[series]
		lines := s.lines[series.Name]
		for _, l := range lines {
			v, ok := values[l.name]
			if !ok {
				v = math.NaN()
			}
			l.values.push(v)
		}
		for _, name := range sortedKeys(values) {
			if len(lines) >= maxLinesPerSeries || slices.ContainsFunc(lines, func(l *line) bool { return l.name == name }) {
				continue
			}
			l := &line{name: name, values: newRing[float64](s.capacity)}
			for range held {
				l.values.push(math.NaN())
			}
			l.values.push(values[name])
			lines = append(lines, l)
		}
		s.lines[series.Name] = lines
	}
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Line is one line of a series as read: a value per sample time, NaN where there was none
// (null in JSON).
type Line struct {
	Name   string `json:"name"`
	Values Values `json:"values"`
}

// SeriesData is a series as read.
type SeriesData struct {
	Name  string `json:"name"`
	Unit  string `json:"unit"`
	Lines []Line `json:"lines"`
}

// read returns the sample times (Unix milliseconds, oldest first) and the named series with
// their values at those times, or UnknownSeriesError for a series the node does not keep.
func (s *Store) read(names ...string) (times []int64, data []SeriesData, err error) {
	var want []Series
	for _, name := range names {
		i := slices.IndexFunc(kept, func(k Series) bool { return k.Name == name })
		if i < 0 {
			return nil, nil, UnknownSeriesError{Name: name}
		}
		want = append(want, kept[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	times = s.times.appendTo(make([]int64, 0, s.times.len()))
	for _, series := range want {
		d := SeriesData{Name: series.Name, Unit: series.Unit, Lines: []Line{}}
		for _, l := range s.lines[series.Name] {
			d.Lines = append(d.Lines, Line{Name: l.name, Values: l.values.appendTo(make([]float64, 0, len(times)))})
		}
		data = append(data, d)
	}
	return times, data, nil
}

// Names lists the series the node keeps.
func Names() []string {
	names := make([]string, len(kept))
	for i, k := range kept {
		names[i] = k.Name
	}
	return names
}
