package series

import (
	"bytes"
	"fmt"

	"go.etcd.io/bbolt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Report is what Verify found: the entries it walked and, if the journal does not hold
// together, its first break.
type Report struct {
	Entries, Issued, Voided uint64
	Break                   *Break
}

// Break is where a journal stops holding together: the seq of the first entry (or missing
// entry) at fault, and why, for a human.
type Break struct {
	Seq    uint64
	Reason string
}

// Verify walks a series' journal from its first entry and recomputes it: every hash, the
// prev_hash links, seqs without gaps, numbers consecutive per period (an issue or a skipping
// void takes the next number), voids of numbers issued earlier and not voided yet, and the
// head the definition holds. Its memory does not grow with the journal's length, except for
// the issued numbers that were voided.
func (s *Store) Verify(database, name string) (Report, error) {
	var r Report
	err := s.view(func(tx *bbolt.Tx) error {
		b, err := seriesBucket(tx, database, name)
		if err != nil {
			return err
		}
		def, err := readDefinition(b)
		if err != nil {
			return err
		}
		f, err := parseFormat(def.GetFormat(), def.GetPeriod())
		if err != nil {
			r.Break = &Break{Seq: 0, Reason: "the series' format is invalid: " + err.Error()}
			return nil
		}
		w := &walk{def: def, format: f, numbers: &walkedNumbers{b: b, voided: make(map[numberRef]bool)}}
		r.Break, err = w.run(b)
		r.Entries, r.Issued, r.Voided = w.seq, w.issued, w.voidedN
		return err
	})
	return r, err
}

type numberRef struct {
	period string
	number int64
}

// walk is Verify's state, and a restore's: where the chain and the numbering stand after the
// entries so far.
type walk struct {
	def     *raftv1.SeriesDefinition
	format  format
	numbers numberLog

	seq             uint64
	hash            []byte
	timeMs          int64
	period          string
	last            int64
	issued, voidedN uint64
}

// run walks the entries of bucket b.
func (w *walk) run(b *bbolt.Bucket) (*Break, error) {
	c := b.Bucket(bucketEntries).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		want := w.seq + 1
		if !bytes.Equal(k, seqKey(want)) {
			return &Break{Seq: want, Reason: fmt.Sprintf("entry %d is missing: the journal goes from entry %d to key %x", want, w.seq, k)}, nil
		}
		e, err := decodeEntry(v)
		if err != nil {
			return &Break{Seq: want, Reason: fmt.Sprintf("entry %d does not decode: %v", want, err)}, nil
		}
		if reason := w.check(e, want); reason != "" {
			return &Break{Seq: want, Reason: fmt.Sprintf("entry %d: %s", want, reason)}, nil
		}
	}
	return w.checkHead(), nil
}

// check returns why entry e, expected at seq, breaks the journal, or "" if it does not. When it
// does not, the walk moves past it.
func (w *walk) check(e *raftv1.SeriesEntry, seq uint64) string {
	switch {
	case e.GetSeq() != seq:
		return fmt.Sprintf("it says it is entry %d", e.GetSeq())
	case e.GetDatabase() != w.def.GetDatabase() || e.GetSeries() != w.def.GetName():
		return fmt.Sprintf("it belongs to series %q of database %q", e.GetSeries(), e.GetDatabase())
	case !bytes.Equal(e.GetPrevHash(), w.hash):
		return fmt.Sprintf("its prev_hash %x is not the hash of entry %d (%x)", e.GetPrevHash(), w.seq, w.hash)
	case !bytes.Equal(e.GetHash(), entryHash(e)):
		return fmt.Sprintf("its hash %x is not the hash of its content (%x): the entry was changed", e.GetHash(), entryHash(e))
	case e.GetTimeMs() < w.timeMs:
		return fmt.Sprintf("its time %d is before the previous entry's %d", e.GetTimeMs(), w.timeMs)
	}
	switch e.GetKind() {
	case raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED:
		if reason := w.checkNext(e, "issues"); reason != "" {
			return reason
		}
		if id := w.format.render(e.GetTimeMs(), e.GetNumber()); e.GetId() != id {
			return fmt.Sprintf("its id %q should be %q", e.GetId(), id)
		}
		w.numbers.issuedBy(e)
		w.issued++
	case raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED:
		if reason := w.checkVoid(e); reason != "" {
			return reason
		}
		w.voidedN++
	default:
		return fmt.Sprintf("unknown kind %v", e.GetKind())
	}
	w.seq, w.hash, w.timeMs = seq, e.GetHash(), e.GetTimeMs()
	return ""
}

// checkNext checks that e takes the next number of its period, and moves the numbering on.
func (w *walk) checkNext(e *raftv1.SeriesEntry, what string) string {
	period := periodKey(w.def.GetPeriod(), e.GetTimeMs())
	next := int64(1)
	if period == w.period {
		if w.last == maxNumber {
			return fmt.Sprintf("it %s a number past the largest int64 in period %q", what, period)
		}
		next = w.last + 1
	}
	if e.GetPeriod() != period || e.GetNumber() != next {
		return fmt.Sprintf("it %s number %d of period %q; the next number was %d of period %q", what, e.GetNumber(), e.GetPeriod(), next, period)
	}
	w.period, w.last = period, next
	return ""
}

// checkVoid checks a void: of a number issued earlier and not voided, or (gaps-allowed) of
// the next number.
func (w *walk) checkVoid(e *raftv1.SeriesEntry) string {
	ref := numberRef{e.GetPeriod(), e.GetNumber()}
	if w.numbers.isVoided(ref) {
		return fmt.Sprintf("it voids number %d of period %q again", ref.number, ref.period)
	}
	if issue := w.numbers.issueOf(ref, w.seq); issue != nil {
		if issue.GetId() != e.GetId() {
			return fmt.Sprintf("its id %q is not %q, the id of the number it voids", e.GetId(), issue.GetId())
		}
		w.numbers.voidedBy(ref)
		return ""
	}
	if w.def.GetPolicy() != raftv1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED {
		return fmt.Sprintf("it voids number %d of period %q, which was not issued before, in a gapless series", ref.number, ref.period)
	}
	if reason := w.checkNext(e, "skips"); reason != "" {
		return reason
	}
	if id := w.format.render(e.GetTimeMs(), e.GetNumber()); e.GetId() != id {
		return fmt.Sprintf("its id %q should be %q", e.GetId(), id)
	}
	return ""
}

// numberLog is what a walk knows of the numbers issued and voided before the entry it checks.
type numberLog interface {
	// issueOf returns the entry that issued the number among the first seq entries (which
	// were checked already), or nil.
	issueOf(ref numberRef, seq uint64) *raftv1.SeriesEntry
	// isVoided reports whether the number was voided after it was issued.
	isVoided(ref numberRef) bool
	// issuedBy and voidedBy record an issue, and a void of an issued number, that passed
	// the checks.
	issuedBy(e *raftv1.SeriesEntry)
	voidedBy(ref numberRef)
}

// walkedNumbers is Verify's numberLog: the numbers index of the journal walked, whose rows are
// checked against the entries they point at, and the issued numbers voided so far.
type walkedNumbers struct {
	b      *bbolt.Bucket
	voided map[numberRef]bool
}

func (n *walkedNumbers) issueOf(ref numberRef, seq uint64) *raftv1.SeriesEntry {
	return indexedIssue(n.b, ref, seq)
}
func (n *walkedNumbers) isVoided(ref numberRef) bool  { return n.voided[ref] }
func (n *walkedNumbers) issuedBy(*raftv1.SeriesEntry) {}
func (n *walkedNumbers) voidedBy(ref numberRef)       { n.voided[ref] = true }

// indexedIssue returns the entry among the first seq of a series that issued the number. It
// finds it through the numbers index and checks it against the index; it returns nil if there
// is none.
func indexedIssue(b *bbolt.Bucket, ref numberRef, seq uint64) *raftv1.SeriesEntry {
	use, err := decodeNumberUse(b.Bucket(bucketNumbers).Get(numberKey(ref.period, ref.number)))
	if err != nil || use.issued == 0 || use.issued > seq {
		return nil
	}
	e, err := entryAt(b, use.issued)
	if err != nil || e == nil || e.GetKind() != raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED ||
		e.GetPeriod() != ref.period || e.GetNumber() != ref.number {
		return nil
	}
	return e
}

// checkHead compares the end of the walk with the head the definition holds.
func (w *walk) checkHead() *Break {
	d := w.def
	switch {
	case d.GetEntries() > w.seq:
		return &Break{Seq: w.seq + 1, Reason: fmt.Sprintf("entries %d to %d are missing: the journal ends at entry %d", w.seq+1, d.GetEntries(), w.seq)}
	case d.GetEntries() < w.seq:
		return &Break{Seq: d.GetEntries() + 1, Reason: fmt.Sprintf("the head says the journal ends at entry %d, but it goes on to %d", d.GetEntries(), w.seq)}
	case !bytes.Equal(d.GetHeadHash(), w.hash):
		return &Break{Seq: w.seq, Reason: fmt.Sprintf("the head hash %x is not the hash of the last entry (%x)", d.GetHeadHash(), w.hash)}
	case w.seq > 0 && (d.GetCurrentPeriod() != w.period || d.GetLastNumber() != w.last):
		return &Break{Seq: w.seq, Reason: fmt.Sprintf("the head says the last number is %d of period %q, the journal %d of period %q", d.GetLastNumber(), d.GetCurrentPeriod(), w.last, w.period)}
	case d.GetIssued() != w.issued || d.GetVoided() != w.voidedN:
		return &Break{Seq: w.seq, Reason: fmt.Sprintf("the head counts %d issued and %d voided, the journal %d and %d", d.GetIssued(), d.GetVoided(), w.issued, w.voidedN)}
	case w.seq > 0 && d.GetClockMs() != w.timeMs:
		return &Break{Seq: w.seq, Reason: fmt.Sprintf("the head's clock %d is not the last entry's time %d", d.GetClockMs(), w.timeMs)}
	}
	return nil
}
