package fsm

import (
	"container/heap"
	"slices"
	"strings"
)

// Identities returns up to limit counters of database db whose folded name starts with the
// folded prefix and sorts after the folded name after, in name order. more reports whether
// any are left.
func (f *FSM) Identities(db, prefix, after string, limit int) (page []Identity, more bool, err error) {
	return readPage(f, db, prefix, after, limit,
		func(d *database) map[string]int64 { return d.identities },
		func(d *database, k string, v int64) Identity {
			return Identity{Database: DatabaseName(db), Name: d.identityName(k), Value: v}
		})
}

// readPage reads one page of a database's map under the lock, and turns each entry into a
// row. of picks the map (counters, tags or claims) from the database. Every listing pages
// through readPage.
func readPage[V, T any](f *FSM, database, prefix, after string, limit int, of func(*database) map[string]V, row func(*database, string, V) T) ([]T, bool, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	prefix, after = f.st.key(prefix), f.st.key(after)
	d, err := f.st.db(database)
	if err != nil {
		return nil, false, err
	}
	m := of(d)
	keys, more := pageOf(m, prefix, after, limit)
	page := make([]T, len(keys))
	for i, k := range keys {
		page[i] = row(d, k, m[k])
	}
	return page, more, nil
}

// pageOf returns, in order, up to limit keys of m that start with prefix and sort after after;
// more reports whether any are left. It keeps only the limit+1 smallest keys while it scans (a
// bounded max-heap), so a page of a map with a million keys costs one pass and no sort of them
// all: the read lock it runs under holds up every write to the log meanwhile.
func pageOf[V any](m map[string]V, prefix, after string, limit int) (keys []string, more bool) {
	smallest := &maxHeap{}
	for k := range m {
		if !strings.HasPrefix(k, prefix) || k <= after {
			continue
		}
		if smallest.Len() <= limit {
			heap.Push(smallest, k)
		} else if k < (*smallest)[0] {
			(*smallest)[0] = k
			heap.Fix(smallest, 0)
		}
	}
	keys = []string(*smallest)
	slices.Sort(keys)
	if len(keys) > limit {
		keys, more = keys[:limit], true
	}
	return keys, more
}

// maxHeap is a container/heap of strings, largest first.
type maxHeap []string

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Claims returns the claims of database for those of ids that are claimed, in the order asked.
func (f *FSM) Claims(database string, ids []string) ([]Claim, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	d, err := f.st.db(database)
	if err != nil {
		return nil, err
	}
	var out []Claim
	for _, id := range ids {
		if c, ok := d.claims[f.st.key(id)]; ok {
			out = append(out, Claim{Database: DatabaseName(database), ID: c.id, Owner: c.owner})
		}
	}
	return out, nil
}

// ListClaims returns up to limit claims of database db whose folded ID starts with the folded
// prefix and sorts after the folded after, in that order. more reports whether any are left.
func (f *FSM) ListClaims(db, prefix, after string, limit int) (page []Claim, more bool, err error) {
	return readPage(f, db, prefix, after, limit,
		func(d *database) map[string]claim { return d.claims },
		func(_ *database, _ string, c claim) Claim {
			return Claim{Database: DatabaseName(db), ID: c.id, Owner: c.owner}
		})
}

// Identity returns the current value of one counter of database (0 if it does not exist
// yet, or the database does not).
func (f *FSM) Identity(database, name string) int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if d := f.st.databases[DatabaseName(database)]; d != nil {
		return d.identities[f.st.key(name)]
	}
	return 0
}

// HiLoMax returns the highest number ever reserved for tag in database.
func (f *FSM) HiLoMax(database, tag string) int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if d := f.st.databases[DatabaseName(database)]; d != nil {
		return d.hilo[foldKey(tag)].currentMax()
	}
	return 0
}

// DatabaseInfo describes one live database.
type DatabaseInfo struct {
	Name              string
	Identities        int // counters
	HiLoTags          int
	MaxIdentities     int64   // 0: no limit
	MaxCallsPerSecond float64 // per node; 0: no limit
	Claims            int
	MaxClaims         int64 // the limit in force
}

// Databases lists the live databases by name, the default among them.
func (f *FSM) Databases() []DatabaseInfo {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out []DatabaseInfo
	for _, name := range sortedKeys(f.st.databases) {
		if d := f.st.databases[name]; !d.deleted {
			out = append(out, DatabaseInfo{Name: name, Identities: len(d.identities), HiLoTags: len(d.hilo),
				MaxIdentities: d.maxIdentities, MaxCallsPerSecond: d.maxCallsPerSecond, Claims: len(d.claims), MaxClaims: d.claimLimit()})
		}
	}
	return out
}

// CallsPerSecond is database's limit of calls a second per node (0: none, or no such
// database).
func (f *FSM) CallsPerSecond(database string) float64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if d := f.st.databases[DatabaseName(database)]; d != nil {
		return d.maxCallsPerSecond
	}
	return 0
}

// HasDatabase reports whether database exists (and is not deleted).
func (f *FSM) HasDatabase(database string) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	_, err := f.st.db(database)
	return err == nil
}

// Nodes returns the registered nodes sorted by tag.
func (f *FSM) Nodes() []Node {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]Node, 0, len(f.st.nodes))
	for _, k := range sortedKeys(f.st.nodes) {
		out = append(out, f.st.nodes[k])
	}
	return out
}

// NodeByID is the registered node with Raft member ID id.
func (f *FSM) NodeByID(id string) (Node, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.st.nodeByID(id)
}

// Separator is the cluster's identity parts separator, or "" before a node registered one.
func (f *FSM) Separator() string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.st.separator
}

// ClusterSecret is the secret node-to-node calls carry, or nil before a leader set one.
func (f *FSM) ClusterSecret() []byte {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.st.clusterSecret
}

// RetiredTags returns the tags of removed nodes, sorted.
func (f *FSM) RetiredTags() []string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return sortedKeys(f.st.retired)
}
