package series

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Issue assigns the next numbers, the command at raft index index: one answer per issue, in
// order, each on its own (one refused issue does not fail the others). A retry (the same
// request_id, document_hash and fields) answers the entry it made.
func (tx *Tx) Issue(index uint64, b *raftv1.SeriesIssueBatch) []IssueResult {
	results := make([]IssueResult, len(b.GetIssues()))
	if !tx.apply(index) {
		for i, is := range b.GetIssues() {
			results[i].Entry, results[i].Err = tx.replayed(is.GetDatabase(), is.GetSeries(), is.GetRequestId())
		}
		return results
	}
	timeErr := CheckIssueTime(b)
	for i, is := range b.GetIssues() {
		if timeErr != nil {
			results[i].Err = timeErr
			continue
		}
		results[i].Entry, results[i].Err = tx.issue(is, b.GetProposedAtMs())
	}
	return results
}

func (tx *Tx) issue(is *raftv1.SeriesIssue, proposedAtMs int64) (*raftv1.SeriesEntry, error) {
	if err := CheckIssue(is); err != nil {
		return nil, err
	}
	o, err := tx.series(is.GetDatabase(), is.GetSeries())
	if err != nil {
		return nil, err
	}
	if err := o.refuseWhileRestoring(); err != nil {
		return nil, err
	}
	if prior, err := byRequest(o.b, is.GetRequestId()); err != nil || prior != nil {
		if err == nil && !sameIssue(prior, is) {
			err = fmt.Errorf("%w: request %q made entry %d (%s) of %q", ErrRequestIDReused, is.GetRequestId(), prior.GetSeq(), prior.GetId(), o.def.GetName())
		}
		if err != nil {
			return nil, err
		}
		return prior, nil
	}
	timeMs := max(o.def.GetClockMs(), proposedAtMs)
	period, n, err := o.nextNumber(timeMs)
	if err != nil {
		return nil, err
	}
	e := &raftv1.SeriesEntry{
		Kind: raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED, Period: period, Number: n,
		Id: o.format.render(timeMs, n), TimeMs: timeMs, RequestId: is.GetRequestId(),
		DocumentHash: is.GetDocumentHash(), Fields: is.GetFields(), Actor: is.GetIssuedBy(),
	}
	if err := o.append(e); err != nil {
		return nil, err
	}
	if err := o.b.Bucket(bucketNumbers).Put(numberKey(period, n), numberUse{issued: e.Seq}.bytes()); err != nil {
		return nil, fmt.Errorf("series: write number of entry %d: %w", e.Seq, err)
	}
	o.def.CurrentPeriod, o.def.LastNumber = period, n
	o.def.Issued++
	return e, nil
}

// sameIssue reports whether an issue is a retry of the one that made entry e.
func sameIssue(e *raftv1.SeriesEntry, is *raftv1.SeriesIssue) bool {
	if e.GetKind() != raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED || !bytes.Equal(e.GetDocumentHash(), is.GetDocumentHash()) ||
		len(e.GetFields()) != len(is.GetFields()) {
		return false
	}
	for i, f := range e.GetFields() {
		if !proto.Equal(f, is.GetFields()[i]) {
			return false
		}
	}
	return true
}
