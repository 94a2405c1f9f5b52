package metrics

import (
	"sync"

	"github.com/idnode/idnode/fsm"
)

const (
	// maxDatabaseLabels bounds the database label's values: every name is a time series per
	// strategy, and a cluster may hold many databases. The first ones seen keep their name.
	maxDatabaseLabels = 64
	// otherDatabases is the label of the databases past that bound.
	otherDatabases = "other"
)

// databaseLabels hands out the database label values, at most maxDatabaseLabels of them.
type databaseLabels struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (d *databaseLabels) label(name string) string {
	name = fsm.DatabaseName(name)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = map[string]bool{fsm.DefaultDatabase: true}
	}
	if !d.seen[name] {
		if len(d.seen) >= maxDatabaseLabels {
			return otherDatabases
		}
		d.seen[name] = true
	}
	return name
}
