package metrics

import "sync"

const (
	// maxDatabaseLabels bounds the database label's values: every name is a time series per
	// strategy, and a cluster may hold many databases.
	maxDatabaseLabels = 64
	// maxPoolTagLabels bounds the HiLo tags the pool metrics name, over all databases.
	maxPoolTagLabels = 256
	// otherLabel is the label value of the names past a bound.
	otherLabel = "other"
)

// boundedLabels hands out label values for names users choose (databases, HiLo tags): the
// first limit names seen keep their name, the rest share otherLabel, so a client making up
// names cannot grow the time series without bound.
type boundedLabels struct {
	limit int
	mu    sync.Mutex
	seen  map[string]bool
}

func newBoundedLabels(limit int, first ...string) *boundedLabels {
	b := &boundedLabels{limit: limit, seen: make(map[string]bool, limit)}
	for _, name := range first {
		b.seen[name] = true
	}
	return b
}

// label returns the label value for name: name itself, or otherLabel when limit other names
// were seen first.
func (b *boundedLabels) label(name string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.seen[name] {
		if len(b.seen) >= b.limit {
			return otherLabel
		}
		b.seen[name] = true
	}
	return name
}
