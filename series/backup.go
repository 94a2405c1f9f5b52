package series

import (
	"bytes"
	"fmt"

	"go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Bounds of one RestoreSeries command: a backup's journal goes through Raft in chunks, each a
// log entry of bounded size and an apply of bounded time.
const (
	MaxRestoreEntries = 500
	MaxRestoreBytes   = 1 << 20
)

// RestoreResult answers a RestoreSeries command.
type RestoreResult struct {
	Created   bool // the series was new here
	Appended  int  // entries appended
	Held      int  // entries the series held already, skipped
	Restoring bool // the series still lacks entries of the backup, so it issues and voids nothing
}

// CheckRestore validates a RestoreSeries before it is proposed, as CheckCreate, CheckIssue and
// CheckVoid validate the commands that made the series. The store checks it again when it
// applies it, and then also checks its chain and numbering against the journal.
func CheckRestore(r *raftv1.RestoreSeries) error {
	def := r.GetDefinition()
	if err := checkCreation(def); err != nil {
		return err
	}
	if n := len(r.GetEntries()); n > MaxRestoreEntries {
		return fmt.Errorf("%w: %d entries in one restore, at most %d", ErrBadInput, n, MaxRestoreEntries)
	}
	if size := proto.Size(r); size > MaxRestoreBytes {
		return fmt.Errorf("%w: a restore of %d bytes, at most %d", ErrBadInput, size, MaxRestoreBytes)
	}
	for _, e := range r.GetEntries() {
		if err := checkEntry(e); err != nil {
			return fmt.Errorf("entry %d of %q: %w", e.GetSeq(), def.GetName(), err)
		}
	}
	return nil
}

// checkEntry checks an entry's fields as the issue or void that made it was checked.
func checkEntry(e *raftv1.SeriesEntry) error {
	switch e.GetKind() {
	case raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED:
		if e.GetReason() != "" || e.GetCorrecting() != "" {
			return fmt.Errorf("%w: an issue has no reason or correcting", ErrBadInput)
		}
		return firstError(checkTime(e.GetTimeMs()), CheckIssue(&raftv1.SeriesIssue{
			Database: e.GetDatabase(), Series: e.GetSeries(), RequestId: e.GetRequestId(),
			DocumentHash: e.GetDocumentHash(), Fields: e.GetFields(), IssuedBy: e.GetActor(),
		}))
	case raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED:
		if len(e.GetDocumentHash()) > 0 || len(e.GetFields()) > 0 {
			return fmt.Errorf("%w: a void has no document_hash or fields", ErrBadInput)
		}
		return CheckVoid(&raftv1.SeriesVoid{
			Database: e.GetDatabase(), Series: e.GetSeries(), Period: e.GetPeriod(), Number: e.GetNumber(),
			Reason: e.GetReason(), Correcting: e.GetCorrecting(), RequestId: e.GetRequestId(),
			VoidedBy: e.GetActor(), ProposedAtMs: e.GetTimeMs(),
		})
	}
	return fmt.Errorf("%w: unknown entry kind %v", ErrBadInput, e.GetKind())
}

// Restore puts a chunk of a backup's series back, the command at raft index index. A series
// the database lacks is created as the backup's definition says; in one it has (created the
// same way), an entry at a seq it holds must be the same entry (same hash) and is skipped, and
// an entry at the head's seq + 1 is appended. Every appended entry is checked as Verify checks
// the journal (chain, hash, time, numbering, ids, voids) and indexed as issuing it was. Any
// other entry refuses the command with ErrSeriesDiverged, changing nothing: the chunk is
// checked whole before anything is written. With shut, a series left short of the backup's
// last entry refuses issues and voids until a later chunk brings it (restoring.go).
func (tx *Tx) Restore(index uint64, r *raftv1.RestoreSeries, shut bool) (RestoreResult, error) {
	def := r.GetDefinition()
	if !tx.apply(index) {
		return RestoreResult{}, fmt.Errorf("%w: the restore of series %q", ErrReplayed, def.GetName())
	}
	if err := CheckRestore(r); err != nil {
		return RestoreResult{}, err
	}
	key := seriesKey(def.GetDatabase(), def.GetName())
	var o *openSeries // the series here, nil while it has none
	if tx.tx.Bucket(bucketSeries).Bucket(key) != nil {
		var err error
		if o, err = tx.series(def.GetDatabase(), def.GetName()); err != nil {
			return RestoreResult{}, err
		}
		if !sameCreation(o.def, def) {
			return RestoreResult{}, fmt.Errorf("%w: %q of database %q was created otherwise here (as %q, format %q, created at %d)",
				ErrSeriesDiverged, def.GetName(), def.GetDatabase(), o.def.GetName(), o.def.GetFormat(), o.def.GetCreatedAtMs())
		}
	} else if n := tx.countSeries(def.GetDatabase()); n >= maxSeriesPerDB {
		return RestoreResult{}, fmt.Errorf("%w: %q holds %d series", ErrTooManySeries, def.GetDatabase(), n)
	}
	var b *bbolt.Bucket
	head := &raftv1.SeriesDefinition{ // a new series' head, as Create makes it
		Database: def.GetDatabase(), Name: def.GetName(), Format: def.GetFormat(), Period: def.GetPeriod(),
		Policy: def.GetPolicy(), CreatedAtMs: def.GetCreatedAtMs(), CreatedBy: def.GetCreatedBy(),
		ClockMs: def.GetCreatedAtMs(), RequestId: def.GetRequestId(),
	}
	if o != nil {
		b, head = o.b, o.def
	}
	held, fresh, err := planRestore(b, head, def, r.GetEntries())
	if err != nil {
		return RestoreResult{}, err
	}
	reached := head.GetEntries()
	if len(fresh) > 0 {
		reached = fresh[len(fresh)-1].GetSeq()
	}
	awaited := head.GetRestoringUntil()
	res := RestoreResult{Created: o == nil, Appended: len(fresh), Held: held, Restoring: markRestoring(head, def, reached, shut)}
	if o != nil {
		o.dirty = o.dirty || head.GetRestoringUntil() != awaited
	} else {
		if b, err = tx.tx.Bucket(bucketSeries).CreateBucket(key); err == nil {
			err = initSeriesBucket(b, head)
		}
		if err == nil && len(fresh) > 0 {
			o, err = tx.series(def.GetDatabase(), def.GetName())
		}
		if err != nil {
			return RestoreResult{}, fmt.Errorf("series: restore %q: %w", def.GetName(), err)
		}
	}
	for _, e := range fresh {
		if err := writeEntry(o.b, o.def, e); err != nil {
			return RestoreResult{}, fmt.Errorf("series: restore entry %d of %q: %w", e.GetSeq(), def.GetName(), err)
		}
		o.dirty = true
	}
	return res, nil
}

// planRestore checks a chunk of a backup's series against the series this journal holds (its
// bucket b, nil if there is none, and its head) without writing anything. It returns how many
// of the chunk's entries the journal holds already, and the entries to append, each checked in
// turn as Verify checks the journal.
func planRestore(b *bbolt.Bucket, head, def *raftv1.SeriesDefinition, entries []*raftv1.SeriesEntry) (int, []*raftv1.SeriesEntry, error) {
	name := def.GetName()
	f, err := parseFormat(head.GetFormat(), head.GetPeriod())
	if err != nil {
		return 0, nil, err
	}
	w := &walk{def: head, format: f, numbers: &restoredNumbers{b: b, issues: make(map[numberRef]*raftv1.SeriesEntry), voids: make(map[numberRef]bool)},
		seq: head.GetEntries(), hash: head.GetHeadHash(), timeMs: head.GetClockMs(), period: head.GetCurrentPeriod(),
		last: head.GetLastNumber(), issued: head.GetIssued(), voidedN: head.GetVoided()}
	requests := make(map[string]bool)
	held := 0
	var fresh []*raftv1.SeriesEntry
	for _, e := range entries {
		seq := e.GetSeq()
		switch {
		case seq > def.GetEntries():
			return 0, nil, fmt.Errorf("%w: entry %d of %q is past the backup's head (entry %d)", ErrSeriesDiverged, seq, name, def.GetEntries())
		case len(fresh) == 0 && seq >= 1 && seq <= head.GetEntries():
			if err := sameAsHeld(b, e); err != nil {
				return 0, nil, fmt.Errorf("%w: %q entry %d: %v", ErrSeriesDiverged, name, seq, err)
			}
			held++
		case seq == w.seq+1:
			if reason := w.check(e, seq); reason != "" {
				return 0, nil, fmt.Errorf("%w: %q entry %d: %s", ErrSeriesDiverged, name, seq, reason)
			}
			if prior, err := requestHeld(b, e.GetRequestId()); err != nil || prior || requests[e.GetRequestId()] {
				if err == nil {
					err = fmt.Errorf("%w: %q entry %d: request %q made another entry", ErrSeriesDiverged, name, seq, e.GetRequestId())
				}
				return 0, nil, err
			}
			requests[e.GetRequestId()] = true
			fresh = append(fresh, e)
		default:
			return 0, nil, fmt.Errorf("%w: %q entry %d does not follow entry %d", ErrSeriesDiverged, name, seq, w.seq)
		}
	}
	if w.seq == def.GetEntries() && (!bytes.Equal(w.hash, def.GetHeadHash()) || w.issued != def.GetIssued() || w.voidedN != def.GetVoided() ||
		w.timeMs != def.GetClockMs() || w.period != def.GetCurrentPeriod() || w.last != def.GetLastNumber()) {
		return 0, nil, fmt.Errorf("%w: the backup's head of %q is not the one its entries make", ErrSeriesDiverged, name)
	}
	return held, fresh, nil
}

// sameAsHeld checks that e is the entry the series holds at its seq: the same hash, and a hash
// that is e's.
func sameAsHeld(b *bbolt.Bucket, e *raftv1.SeriesEntry) error {
	local, err := entryAt(b, e.GetSeq())
	switch {
	case err != nil:
		return err
	case local == nil:
		return fmt.Errorf("%w: entry %d is missing here", ErrCorrupt, e.GetSeq())
	case !bytes.Equal(e.GetHash(), entryHash(e)):
		return fmt.Errorf("its hash %x is not the hash of its content", e.GetHash())
	case !bytes.Equal(local.GetHash(), e.GetHash()):
		return fmt.Errorf("this cluster holds %s there (hash %x), the backup %s (hash %x)", local.GetId(), local.GetHash(), e.GetId(), e.GetHash())
	}
	return nil
}

// requestHeld reports whether the series (b, nil for none) holds an entry of the request id.
func requestHeld(b *bbolt.Bucket, requestID string) (bool, error) {
	if b == nil {
		return false, nil
	}
	e, err := byRequest(b, requestID)
	return e != nil, err
}

// restoredNumbers is a restore's numberLog: the numbers index of the series here, which holds
// what its journal issued and voided, and the numbers the chunk issued and voided so far.
type restoredNumbers struct {
	b      *bbolt.Bucket // nil: a new series
	issues map[numberRef]*raftv1.SeriesEntry
	voids  map[numberRef]bool
}

func (n *restoredNumbers) issueOf(ref numberRef, seq uint64) *raftv1.SeriesEntry {
	if e := n.issues[ref]; e != nil {
		return e
	}
	if n.b == nil {
		return nil
	}
	return indexedIssue(n.b, ref, seq)
}

func (n *restoredNumbers) isVoided(ref numberRef) bool {
	if n.voids[ref] {
		return true
	}
	if n.b == nil {
		return false
	}
	use, err := decodeNumberUse(n.b.Bucket(bucketNumbers).Get(numberKey(ref.period, ref.number)))
	return err == nil && use.voided != 0
}

func (n *restoredNumbers) issuedBy(e *raftv1.SeriesEntry) {
	n.issues[numberRef{e.GetPeriod(), e.GetNumber()}] = e
}

func (n *restoredNumbers) voidedBy(ref numberRef) { n.voids[ref] = true }
