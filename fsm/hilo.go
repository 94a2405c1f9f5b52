package fsm

import (
	"math"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// applyHiLoReserve applies command 3, which builds proposed before grants had identities. It
// stays as it was for the entries already in logs, because a replay must answer what it
// answered then. The range it reserves has no identity, so command 21 cannot return any of
// it.
func (st hiloTags) applyHiLoReserve(r *raftv1.HiLoReserve) any {
	d, key, h, err := st.hiloReserving(r)
	if err != nil {
		return err
	}
	if rec, err := st.hiloRequest(r, key); err != nil {
		return err
	} else if rec != nil {
		if h == nil || rec.GetLast() > h.max {
			return ErrRangeReturned
		}
		return HiLoRange{Low: rec.GetFirst(), High: rec.GetLast()}
	}
	if r.GetCapacity() < 1 {
		return ErrInvalidCount
	}
	if r.GetLastMax() < 0 {
		return ErrNegativeValue
	}
	h = d.hiloTag(key)
	base := max(h.max, r.GetLastMax())
	if r.GetCapacity() > math.MaxInt64-base {
		return ErrCounterOverflow
	}
	rng := HiLoRange{Low: base + 1, High: base + r.GetCapacity()}
	st.reserveHiLo(h, key, r, rng)
	d.largestHiLo.note(key, h.max)
	h.grants.Clear()
	return rng
}

// hiloReserving is the first step of both reserving commands. It takes the proposer's clock
// for request expiry and returns r's database, its tag's folded key and the tag's state (nil
// if the tag is new).
func (st hiloTags) hiloReserving(r *raftv1.HiLoReserve) (*database, string, *hiloState, error) {
	st.requests.advanceClock(r.GetProposedAtMs())
	d, err := st.db(r.GetDatabase())
	if err != nil {
		return nil, "", nil, err
	}
	key := foldKey(r.GetTag())
	return d, key, d.hilo[key], nil
}

// hiloRequest returns the answer remembered for r's request_id. It returns nil when r has
// none or none is remembered, and ErrRequestIDReused when the id answered something other than
// a range of key.
func (st hiloTags) hiloRequest(r *raftv1.HiLoReserve, key string) (*raftv1.RequestRecord, error) {
	return st.requests.answered(r.GetDatabase(), r.GetRequestId(), requestKindHiLo, key)
}

// reserveHiLo makes rng the newest reservation of h (the tag key) and remembers it as the
// answer to r's request_id.
func (st hiloTags) reserveHiLo(h *hiloState, key string, r *raftv1.HiLoReserve, rng HiLoRange) {
	h.max, h.lastLow = rng.High, rng.Low
	if id := r.GetRequestId(); id != "" {
		st.requests.record(&raftv1.RequestRecord{
			RequestId: id, Database: recordName(DatabaseName(r.GetDatabase())), Kind: requestKindHiLo, Key: key,
			Count: r.GetCapacity(), First: rng.Low, Last: rng.High,
		})
	}
}

// applyHiLoReturn applies command 4, which builds proposed before grants had identities. It is
// kept as it was for the entries already in logs: it lowers Max to last when Max == end and
// lowLast-1 <= last <= Max. Whatever it changes, no grant stays returnable.
func (st hiloTags) applyHiLoReturn(r *raftv1.HiLoReturn) any {
	d, err := st.db(r.GetDatabase())
	if err != nil {
		return err
	}
	h := d.hilo[foldKey(r.GetTag())]
	if h == nil || h.max != r.GetEnd() || r.GetLast() > h.max || r.GetLast() < h.lastLow-1 {
		return h.currentMax()
	}
	h.max = r.GetLast()
	h.grants.Clear()
	return h.max
}

// applySeedHiLo raises the tag's Max to at least max (a migration from RavenDB's
// Raven/Hilo/<tag> or another store), so the next range starts above it. A value at or below
// Max changes nothing: HiLo never goes down. The answer is Max afterwards.
func (st hiloTags) applySeedHiLo(s *raftv1.SeedHiLo) any {
	if s.GetMax() < 0 {
		return ErrNegativeValue
	}
	d, err := st.db(s.GetDatabase())
	if err != nil {
		return err
	}
	key := foldKey(s.GetTag())
	if s.GetMax() <= d.hilo[key].currentMax() {
		// Max stays, but pools may hold numbers up to the seed, reserved before it: raise
		// the floor they grant above.
		if h := d.hilo[key]; h != nil {
			h.floor = max(h.floor, s.GetMax())
		}
		return d.hilo[key].currentMax()
	}
	h := d.hiloTag(key)
	h.raise(s.GetMax())
	d.largestHiLo.note(key, h.max)
	return h.max
}

// hiloTag is the HiLo state of the folded tag key, created at Max 0 if need be.
func (d *database) hiloTag(key string) *hiloState {
	h := d.hilo[key]
	if h == nil {
		h = &hiloState{}
		d.hilo[key] = h
	}
	return h
}

// raise lifts Max to floor when floor is above it, and reports whether it did. The raised tag
// keeps no returnable grant, and its lastLow goes above Max (for command 4: its guard then
// accepts only last == Max, which changes nothing): no client still holding an older range can
// give its tail back below the new floor.
func (h *hiloState) raise(floor int64) bool {
	h.floor = max(h.floor, floor)
	if floor <= h.max {
		return false
	}
	h.max, h.lastLow = floor, floor+1
	h.grants.Clear()
	return true
}

func (h *hiloState) currentMax() int64 {
	if h == nil {
		return 0
	}
	return h.max
}
