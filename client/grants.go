package client

import "sync"

// maxGrants bounds the grants a Client remembers: a generator holds at most two ranges of a
// tag at once, so this covers hundreds of tags; an older grant's return goes to the leader.
const maxGrants = 1024

// grantNodes remembers which node granted each recent HiLo range. With HiLo pools (the
// default) any node grants ranges from its own pool, and a range goes back only to the pool
// that granted it: a return sent anywhere else changes nothing and leaves a gap.
type grantNodes struct {
	mu     sync.Mutex
	byID   map[string]int64 // grant_id → index of the node that granted it
	oldest []string         // grant ids in the order granted, for eviction
}

func (g *grantNodes) remember(grantID string, node int64) {
	if grantID == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byID == nil {
		g.byID = make(map[string]int64)
	}
	if _, ok := g.byID[grantID]; !ok {
		g.oldest = append(g.oldest, grantID)
	}
	g.byID[grantID] = node
	if len(g.oldest) > maxGrants {
		delete(g.byID, g.oldest[0])
		g.oldest = g.oldest[1:]
	}
}

// node is the index of the node that granted grantID, if it is remembered.
func (g *grantNodes) node(grantID string) (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	i, ok := g.byID[grantID]
	return i, ok
}
