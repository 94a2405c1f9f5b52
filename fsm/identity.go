package fsm

import (
	"fmt"
	"math"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func (st *state) applyIdentityBatch(b *raftv1.IdentityBatch) any {
	st.requests.advanceClock(b.GetProposedAtMs())
	res := IdentityBatchResult{Ranges: make([]IdentityRange, len(b.GetIncrements()))}
	for i, inc := range b.GetIncrements() {
		res.Ranges[i] = st.incrementIdentity(inc)
	}
	return res
}

func (st *state) incrementIdentity(inc *raftv1.IdentityIncrement) IdentityRange {
	d, err := st.db(inc.GetDatabase())
	if err != nil {
		return IdentityRange{Err: err}
	}
	key := st.key(inc.GetName())
	// The answer says how its IDs are written at this index, a replay's as well: the setting
	// may have come after the first answer, and a collection once opaque stays so.
	forms, err := d.identityForms(key)
	if err != nil {
		return IdentityRange{Err: err}
	}
	if id := inc.GetRequestId(); id != "" {
		if rec, ok := st.requests.lookup(inc.GetDatabase(), id); ok {
			if rec.GetKind() != requestKindIdentity || rec.GetKey() != key || rec.GetCount() != inc.GetCount() {
				return IdentityRange{Err: ErrRequestIDReused}
			}
			return IdentityRange{IdentityBlock: docid.IdentityBlock{First: rec.GetFirst(), Last: rec.GetLast(), Skipped: rec.GetSkipped()}, Forms: forms}
		}
	}
	if inc.GetCount() < 1 {
		return IdentityRange{Err: ErrInvalidCount}
	}
	current, exists := d.identities[key]
	// An opaque collection skips the values of claimed forms; its claimed plain numbers
	// ("orders/5") skip nothing, since it gives no plain IDs any more.
	nums := d.claimedNumbers[key]
	if forms != nil {
		nums = d.formNumbers[key]
	}
	r, ok := freeValues(nums, current, inc.GetCount())
	if !ok {
		return IdentityRange{Err: fmt.Errorf("%w: identity %q is at %d, and count %d (with the claimed values it skips) would pass %d: ask for a smaller count, or use another name",
			ErrCounterOverflow, inc.GetName(), current, inc.GetCount(), int64(math.MaxInt64))}
	}
	if !exists {
		if err := d.newCounterAllowed(inc.GetName()); err != nil {
			return IdentityRange{Err: err}
		}
	}
	d.setIdentity(key, inc.GetName(), r.Last)
	if id := inc.GetRequestId(); id != "" {
		st.requests.record(&raftv1.RequestRecord{
			RequestId: id, Database: recordName(DatabaseName(inc.GetDatabase())), Kind: requestKindIdentity, Key: key,
			Count: inc.GetCount(), First: r.First, Last: r.Last, Skipped: r.Skipped,
		})
	}
	r.Forms = forms
	return r
}

// freeValues returns the next count values of a counter after current that are not in nums,
// the numbers claimed under it.
// It walks the claimed numbers of the span, not its values: its cost is a binary search and one
// step a claim skipped, whatever count and current are (DESIGN.md, "Claims"). It reports false
// when the values would pass the largest int64: they never wrap.
func freeValues(nums *claimedNumbers, current, count int64) (IdentityRange, bool) {
	if count > math.MaxInt64-current {
		return IdentityRange{}, false
	}
	if nums == nil {
		return IdentityRange{IdentityBlock: docid.IdentityBlock{First: current + 1, Last: current + count}}, true
	}
	// next is the lowest value not decided yet, and left is how many free values are still to
	// be found. A claim before the first free value moves First; a claim after it is counted
	// in Skipped.
	var r IdentityRange
	next, left, started := current+1, count, false
	for c := range nums.from(next) {
		gap := c - next // free values before the claim c
		if gap >= left {
			break
		}
		if gap > 0 && !started {
			r.First, started = next, true
		}
		left -= gap
		if started {
			r.Skipped = append(r.Skipped, c)
		}
		if c == math.MaxInt64 {
			return IdentityRange{}, false
		}
		next = c + 1
	}
	if !started {
		r.First = next
	}
	if left-1 > math.MaxInt64-next {
		return IdentityRange{}, false
	}
	r.Last = next + left - 1
	return r, true
}

// applySeedIdentity raises the counter to value, or with force sets it exactly. The answer is
// the counter afterwards: the next identity is that + 1.
func (st *state) applySeedIdentity(s *raftv1.SeedIdentity) any {
	if s.GetValue() < 0 {
		return ErrNegativeValue
	}
	d, err := st.db(s.GetDatabase())
	if err != nil {
		return err
	}
	key := st.key(s.GetName())
	current, exists := d.identities[key]
	if !exists {
		if err := d.newCounterAllowed(s.GetName()); err != nil {
			return err
		}
	}
	if !exists || s.GetForce() || s.GetValue() > current {
		d.setIdentity(key, s.GetName(), s.GetValue())
	}
	return d.identities[key]
}

// setIdentity sets the counter key (state.key(name)) to value, creating it as spelled by name.
func (d *database) setIdentity(key, name string, value int64) {
	if _, exists := d.identities[key]; !exists && name != key {
		d.spellings[key] = name
	}
	d.identities[key] = value
	d.largestIdentity.note(key, value)
}

// identityName is the counter key as its first caller spelled it.
func (d *database) identityName(key string) string {
	if name, ok := d.spellings[key]; ok {
		return name
	}
	return key
}
