package fsm

import (
	"bytes"
	"cmp"
	"maps"
	"math"
	"slices"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// applyLocalReservations raises what the node with r's member ID has published of its local
// counters: its etag watermark and its pools' marks only ever grow. The answer is
// the node's Reservations after the command, which a node starting from older files takes as
// its floor: the log orders this answer after every earlier publication, so it is the newest.
func (m *members) applyLocalReservations(r *raftv1.LocalReservations) any {
	n, ok := m.nodeByID(r.GetMemberId())
	if !ok {
		return ErrNotRegistered
	}
	if r.GetEtag() > math.MaxInt64 {
		return ErrBadReservation
	}
	for _, mark := range r.GetPools() {
		if mark.GetTag() == "" || mark.GetGranted() < 0 {
			return ErrBadReservation
		}
	}
	if len(r.GetSeal()) > maxSealLen || len(r.GetUnseal()) > maxSealLen || (len(r.GetSeal()) > 0 && len(r.GetUnseal()) > 0) {
		return ErrBadReservation
	}
	old := m.reserved[n.Tag]
	res := Reservations{Etag: max(old.Etag, r.GetEtag()), Pools: old.Pools, Seal: old.Seal}
	switch {
	case len(r.GetSeal()) > 0:
		res.Seal = r.GetSeal()
	case len(r.GetUnseal()) > 0:
		res.SealMatched = bytes.Equal(r.GetUnseal(), old.Seal)
		res.Seal = nil
	}
	raised := false
	for _, mark := range r.GetPools() {
		k := PoolKey{Database: DatabaseName(mark.GetDatabase()), Tag: foldKey(mark.GetTag())}
		if mark.GetGranted() <= res.Pools[k] {
			continue
		}
		if !raised { // copy on write: earlier copies of the record share the old map
			res.Pools, raised = maps.Clone(res.Pools), true
			if res.Pools == nil {
				res.Pools = make(map[PoolKey]int64)
			}
		}
		res.Pools[k] = mark.GetGranted()
	}
	answer := res
	res.SealMatched = false // an answer, not state
	m.reserved[n.Tag] = res
	return answer
}

// maxSealLen bounds a pools seal: a SHA-256 digest.
const maxSealLen = 32

// reservationsRecord renders a node's Reservations for its NodeRecord, pools sorted so every
// replica writes the same bytes.
func reservationsRecord(rec *raftv1.NodeRecord, res Reservations) {
	rec.EtagReserved = res.Etag
	rec.PoolsSeal = res.Seal
	for _, k := range sortedPoolKeys(res.Pools) {
		rec.PoolMarks = append(rec.PoolMarks, &raftv1.PoolMark{Database: recordName(k.Database), Tag: k.Tag, Granted: res.Pools[k]})
	}
}

// restoredReservations is the inverse of reservationsRecord.
func restoredReservations(rec *raftv1.NodeRecord) Reservations {
	res := Reservations{Etag: rec.GetEtagReserved(), Seal: rec.GetPoolsSeal()}
	for _, m := range rec.GetPoolMarks() {
		if res.Pools == nil {
			res.Pools = make(map[PoolKey]int64)
		}
		res.Pools[PoolKey{Database: DatabaseName(m.GetDatabase()), Tag: m.GetTag()}] = m.GetGranted()
	}
	return res
}

func sortedPoolKeys(m map[PoolKey]int64) []PoolKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b PoolKey) int {
		return cmp.Or(cmp.Compare(a.Database, b.Database), cmp.Compare(a.Tag, b.Tag))
	})
}

// Reservations is what the registered node with Raft member ID id has published of its local
// counters, as this replica has applied so far; ok is false when no such node is registered.
func (f *FSM) Reservations(id string) (res Reservations, ok bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	n, ok := f.st.nodeByID(id)
	return f.st.reserved[n.Tag], ok
}
