package fsm

import (
	"slices"
	"strings"
)

// Identities returns up to limit counters whose folded name starts with the folded prefix
// and sorts after the folded name after, in name order. more reports whether any are left.
func (f *FSM) Identities(prefix, after string, limit int) (page []Identity, more bool) {
	prefix, after = foldKey(prefix), foldKey(after)
	f.mu.RLock()
	defer f.mu.RUnlock()
	keys := make([]string, 0)
	for k := range f.st.identities {
		if strings.HasPrefix(k, prefix) && k > after {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) > limit {
		keys, more = keys[:limit], true
	}
	page = make([]Identity, len(keys))
	for i, k := range keys {
		c := f.st.identities[k]
		page[i] = Identity{Name: c.name, Value: c.value}
	}
	return page, more
}

// Identity returns the current value of one counter (0 if it does not exist yet).
func (f *FSM) Identity(name string) int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if c := f.st.identities[foldKey(name)]; c != nil {
		return c.value
	}
	return 0
}

// HiLoMax returns the highest number ever reserved for tag.
func (f *FSM) HiLoMax(tag string) int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.st.hilo[foldKey(tag)].currentMax()
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
