package fsm

import (
	"fmt"
	"maps"
	"math"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// applyHiLoPoolReserve reserves capacity numbers above the tag's Max to one node's pool. Like
// any reservation it raises Max, so no range granted any other way, or from another pool, can
// overlap it. As after a raise, the tag keeps no returnable grant: a pool's numbers go back only
// to the pool (package hilopool), never through ReturnHiLo, which could otherwise lower Max
// into numbers the pool still grants.
func (st hiloTags) applyHiLoPoolReserve(r *raftv1.HiLoPoolReserve) any {
	d, err := st.db(r.GetDatabase())
	if err != nil {
		return err
	}
	if _, ok := st.nodeByID(r.GetMemberId()); !ok {
		return fmt.Errorf("%w: member %q", ErrNotRegistered, r.GetMemberId())
	}
	if r.GetCapacity() < 1 {
		return ErrInvalidCount
	}
	h := d.hiloTag(foldKey(r.GetTag()))
	if r.GetCapacity() > math.MaxInt64-h.max {
		return ErrCounterOverflow
	}
	rng := HiLoRange{Low: h.max + 1, High: h.max + r.GetCapacity()}
	h.max, h.lastLow = rng.High, rng.High+1
	d.largestHiLo.note(foldKey(r.GetTag()), h.max)
	h.grants.Clear()
	if h.pools == nil {
		h.pools = make(map[string]int64)
	}
	h.pools[r.GetMemberId()] += r.GetCapacity()
	return rng
}

// retirePools forgets a removed node's pools: their numbers stay below Max, so nobody else is
// ever granted them (gaps, which HiLo allows), and the node gets no more.
func (st hiloTags) retirePools(memberID string) {
	if memberID == "" {
		return
	}
	for _, d := range st.databases {
		for _, h := range d.hilo {
			delete(h.pools, memberID)
		}
	}
}

// HiLoFloor returns the highest Max that a seed or a restore raised tag of database to, or 0
// if none did. A pool grants nothing at or below it.
func (f *FSM) HiLoFloor(database, tag string) int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if d := f.st.databases[DatabaseName(database)]; d != nil {
		if h := d.hilo[foldKey(tag)]; h != nil {
			return h.floor
		}
	}
	return 0
}

// HiLoPools is how many numbers each node's pool got so far for tag of database, by member ID.
func (f *FSM) HiLoPools(database, tag string) map[string]int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make(map[string]int64)
	if d := f.st.databases[DatabaseName(database)]; d != nil {
		if h := d.hilo[foldKey(tag)]; h != nil {
			for id, n := range h.pools {
				out[id] = n
			}
		}
	}
	return out
}

// HiLoTag is a HiLo tag of a database as ListHiLo reads it.
type HiLoTag struct {
	Tag   string // folded
	Max   int64
	Floor int64
	Pools map[string]int64 // numbers each node's pool got so far, by member ID
}

// HiLoTags returns up to limit tags of database db that start with prefix and sort after
// after (both folded as tags are), in order; more reports whether any are left.
func (f *FSM) HiLoTags(db, prefix, after string, limit int) (page []HiLoTag, more bool, err error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	d, err := f.st.db(db)
	if err != nil {
		return nil, false, err
	}
	keys, more := pageOf(d.hilo, foldKey(prefix), foldKey(after), limit)
	page = make([]HiLoTag, len(keys))
	for i, k := range keys {
		h := d.hilo[k]
		page[i] = HiLoTag{Tag: k, Max: h.currentMax(), Floor: h.floor, Pools: maps.Clone(h.pools)}
	}
	return page, more, nil
}
