package fsm

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/internal/hilogrant"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// MaxLastMax bounds a NextHiLo's last_max where it is above the tag's Max. Every range this
// cluster granted ends at or below Max, so a last_max above it comes from a store or cluster
// that got further (a restore from an older backup) or from a caller that lies. Honouring it up
// to 2^53 (the largest integer every JSON reader keeps exact) serves the first; a liar can at
// most move the tag to 2^53 once, which leaves it 2^63 - 2^53 numbers: it can never leave the
// tag unable to grant. Above the bound, and above Max, last_max is OUT_OF_RANGE;
// SeedHiLo (admin) raises a tag further.
const MaxLastMax int64 = 1 << 53

// CheckLastMax reports whether last_max may start a range of the tag whose Max is tagMax.
func CheckLastMax(lastMax, tagMax int64) error {
	switch {
	case lastMax < 0:
		return fmt.Errorf("%w: last_max %d", ErrNegativeValue, lastMax)
	case lastMax > tagMax && lastMax > MaxLastMax:
		return fmt.Errorf("%w: last_max %d, the tag's Max %d, the bound %d; send the high end of the range you were granted, "+
			"or ask an admin to SeedHiLo the tag", ErrLastMaxOutOfRange, lastMax, tagMax, MaxLastMax)
	}
	return nil
}

// applyHiLoGrant reserves (base, base+capacity] with base = max(Max, last_max), so no two
// reservations anywhere in the cluster overlap, and makes it the tag's newest returnable grant,
// as request_id (or the proposer's grant_id without one). A retry of a request_id gets its
// range again, unless that range was returned since: then it gets a new one, as a new request
// would, since the returned numbers may already be someone else's.
func (st hiloTags) applyHiLoGrant(r *raftv1.HiLoReserve) any {
	d, key, h, err := st.hiloReserving(r)
	if err != nil {
		return err
	}
	grant := r.GetGrantId()
	if id := r.GetRequestId(); id != "" {
		grant = id
	}
	if err := hilogrant.CheckID(grant); err != nil {
		return err
	}
	if rec, err := st.hiloRequest(r, key); err != nil {
		return err
	} else if rec != nil && !rec.GetReturned() && h != nil && rec.GetLast() <= h.max {
		// Replayed unless it went back: by command 21 (marked), or by command 4 of an older
		// build (Max below its end).
		return HiLoRange{Low: rec.GetFirst(), High: rec.GetLast(), GrantID: grant}
	}
	if r.GetCapacity() < 1 {
		return ErrInvalidCount
	}
	if err := CheckLastMax(r.GetLastMax(), h.currentMax()); err != nil {
		return err
	}
	base := max(h.currentMax(), r.GetLastMax())
	if r.GetCapacity() > math.MaxInt64-base {
		return fmt.Errorf("%w: a range of %d above %d (the tag's Max or last_max); the tag is full: "+
			"use another tag", ErrCounterOverflow, r.GetCapacity(), base)
	}
	h = d.hiloTag(key)
	rng := HiLoRange{Low: base + 1, High: base + r.GetCapacity(), GrantID: grant}
	st.reserveHiLo(h, key, r, rng)
	d.largestHiLo.note(key, h.max)
	h.grants.Push(hilogrant.Grant{ID: grant, Low: rng.Low, High: rng.High})
	return rng
}

// applyHiLoReturnGrant gives back last+1..end of the grant grant_id, by the rule of package
// hilogrant: only the newest grant of the tag (or the one below it, once the newest came back
// whole), once, and only with its identity. The answer is HiLoReturned, or an error for a
// return that cannot be right (no grant_id, last above end, a range that is not the grant's).
// A request_id whose range came back is marked, so its retry gets a new range. A return with a
// request_id of its own has its answer remembered under it, so a retry answers the same (true
// once the numbers went back, where the range's state alone would say false).
func (st hiloTags) applyHiLoReturnGrant(r *raftv1.HiLoReturn) any {
	if err := hilogrant.CheckReturn(r.GetGrantId(), r.GetEnd(), r.GetLast()); err != nil {
		return err
	}
	if err := hilogrant.CheckID(r.GetRequestId()); err != nil {
		return err
	}
	d, err := st.db(r.GetDatabase())
	if err != nil {
		return err
	}
	key := foldKey(r.GetTag())
	if id := r.GetRequestId(); id != "" {
		if rec, found := st.requests.lookup(r.GetDatabase(), id); found {
			if rec.GetKind() != requestKindHiLoReturn || rec.GetKey() != key || rec.GetFirst() != r.GetLast() || rec.GetLast() != r.GetEnd() {
				return ErrRequestIDReused
			}
			return HiLoReturned(rec.GetReturned())
		}
	}
	out, err := st.returnGrant(d.hilo[key], key, r)
	if err != nil {
		return err
	}
	if id := r.GetRequestId(); id != "" {
		st.requests.record(&raftv1.RequestRecord{
			RequestId: id, Database: recordName(DatabaseName(r.GetDatabase())), Kind: requestKindHiLoReturn, Key: key,
			First: r.GetLast(), Last: r.GetEnd(), Returned: bool(out),
		})
	}
	return out
}

// returnGrant is applyHiLoReturnGrant's return itself, on the tag's state h (nil: none yet).
func (st hiloTags) returnGrant(h *hiloState, key string, r *raftv1.HiLoReturn) (HiLoReturned, error) {
	if h == nil {
		return false, nil
	}
	low := h.grants.Newest.Low
	ok, err := h.grants.Return(r.GetGrantId(), r.GetEnd(), r.GetLast())
	if err != nil || !ok {
		return false, err
	}
	h.max = r.GetLast()
	if h.grants.Newest.ID != "" {
		h.lastLow = h.grants.Newest.Low
	}
	if rec, found := st.requests.lookup(r.GetDatabase(), r.GetGrantId()); found &&
		rec.GetKind() == requestKindHiLo && rec.GetKey() == key && rec.GetFirst() == low && !rec.GetReturned() {
		marked := proto.CloneOf(rec)
		marked.Returned = true
		st.requests.record(marked)
	}
	return true, nil
}

// grantsOf is the returnable grants a snapshot record lists: the newest ends at the tag's Max,
// the one below it right under the newest.
func grantsOf(r *raftv1.HiLoRecord) hilogrant.Stack {
	var s hilogrant.Stack
	if r.GetGrantId() != "" {
		s.Newest = hilogrant.Grant{ID: r.GetGrantId(), Low: r.GetGrantLow(), High: r.GetMax()}
		if r.GetBelowGrantId() != "" {
			s.Below = hilogrant.Grant{ID: r.GetBelowGrantId(), Low: r.GetBelowLow(), High: r.GetGrantLow() - 1}
		}
	}
	return s
}
