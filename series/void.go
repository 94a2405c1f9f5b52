package series

import (
	"fmt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Void records a voided number, the command at raft index index: an entry, never a hole. An
// issued number not yet voided may be voided; the next number of the current period only in
// a gaps-allowed series (it is consumed: the numbering moves on). A retry (the same
// request_id, period, number, reason and correcting) answers the entry it made.
func (tx *Tx) Void(index uint64, v *raftv1.SeriesVoid) (*raftv1.SeriesEntry, error) {
	if !tx.apply(index) {
		return tx.replayed(v.GetDatabase(), v.GetSeries(), v.GetRequestId())
	}
	if err := CheckVoid(v); err != nil {
		return nil, err
	}
	o, err := tx.series(v.GetDatabase(), v.GetSeries())
	if err != nil {
		return nil, err
	}
	if err := o.refuseWhileRestoring(); err != nil {
		return nil, err
	}
	if prior, err := byRequest(o.b, v.GetRequestId()); err != nil || prior != nil {
		if err == nil && !sameVoid(prior, v) {
			err = fmt.Errorf("%w: request %q made entry %d (%s) of %q", ErrRequestIDReused, v.GetRequestId(), prior.GetSeq(), prior.GetId(), o.def.GetName())
		}
		if err != nil {
			return nil, err
		}
		return prior, nil
	}
	timeMs := max(o.def.GetClockMs(), v.GetProposedAtMs())
	id, use, skip, err := tx.voidable(o, v, timeMs)
	if err != nil {
		return nil, err
	}
	e := &raftv1.SeriesEntry{
		Kind: raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED, Period: v.GetPeriod(), Number: v.GetNumber(),
		Id: id, TimeMs: timeMs, RequestId: v.GetRequestId(), Actor: v.GetVoidedBy(),
		Reason: v.GetReason(), Correcting: v.GetCorrecting(),
	}
	if err := o.append(e); err != nil {
		return nil, err
	}
	use.voided = e.Seq
	if err := o.b.Bucket(bucketNumbers).Put(numberKey(v.GetPeriod(), v.GetNumber()), use.bytes()); err != nil {
		return nil, fmt.Errorf("series: write number of entry %d: %w", e.Seq, err)
	}
	if skip {
		o.def.CurrentPeriod, o.def.LastNumber = v.GetPeriod(), v.GetNumber()
	}
	o.def.Voided++
	return e, nil
}

// voidable checks that the number may be voided at timeMs. It returns the voided ID, the
// number's row, and whether the void skips the next number.
func (tx *Tx) voidable(o *openSeries, v *raftv1.SeriesVoid, timeMs int64) (id string, use numberUse, skip bool, err error) {
	name := o.def.GetName()
	if row := o.b.Bucket(bucketNumbers).Get(numberKey(v.GetPeriod(), v.GetNumber())); row != nil {
		if use, err = decodeNumberUse(row); err != nil {
			return "", use, false, err
		}
		if use.voided != 0 {
			return "", use, false, fmt.Errorf("%w: %q number %d of period %q, by entry %d", ErrAlreadyVoided, name, v.GetNumber(), v.GetPeriod(), use.voided)
		}
		issued, err := entryAt(o.b, use.issued)
		if err == nil && issued == nil {
			err = fmt.Errorf("%w: number %d of period %q points at entry %d, which is missing", ErrCorrupt, v.GetNumber(), v.GetPeriod(), use.issued)
		}
		if err != nil {
			return "", use, false, err
		}
		return issued.GetId(), use, false, nil
	}
	period, next, nextErr := o.nextNumber(timeMs)
	if nextErr != nil || period != v.GetPeriod() || next != v.GetNumber() {
		return "", use, false, fmt.Errorf("%w: %q has no number %d in period %q (the next one is %d in period %q)", ErrNotIssued, name, v.GetNumber(), v.GetPeriod(), next, period)
	}
	if o.def.GetPolicy() != raftv1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED {
		return "", use, false, fmt.Errorf("%w (%q, number %d of period %q)", ErrGapless, name, v.GetNumber(), v.GetPeriod())
	}
	return o.format.render(timeMs, next), use, true, nil
}

// sameVoid reports whether a void is a retry of the one that made entry e.
func sameVoid(e *raftv1.SeriesEntry, v *raftv1.SeriesVoid) bool {
	return e.GetKind() == raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED && e.GetPeriod() == v.GetPeriod() &&
		e.GetNumber() == v.GetNumber() && e.GetReason() == v.GetReason() && e.GetCorrecting() == v.GetCorrecting()
}
