package series

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"go.etcd.io/bbolt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// restoreCommitEvery bounds a restore's write transaction, and so its memory.
const restoreCommitEvery = 10_000

// startRebuild gives up keeping the local file: it opens the new one and copies into it the
// series kept so far, up to their snapshot heads (the chain makes those prefixes the
// snapshot's).
func (r *Restorer) startRebuild() error {
	path := restorePath(r.s.path)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("series: remove an old restore file: %w", err)
	}
	db, err := openDB(path, true)
	if err != nil {
		return err
	}
	r.db = db
	if r.tx, err = db.Begin(true); err != nil {
		return fmt.Errorf("series: restore: %w", err)
	}
	kept := r.kept
	r.kept = nil
	for _, d := range kept {
		if err := r.copyLocal(d); err != nil {
			return err
		}
	}
	return nil
}

// copyLocal copies a kept series' entries up to the snapshot's head from the local file.
func (r *Restorer) copyLocal(d *raftv1.SeriesDefinition) error {
	if err := r.newSeries(d); err != nil {
		return err
	}
	for from := uint64(1); from <= d.GetEntries(); {
		var batch []*raftv1.SeriesEntry
		to := min(d.GetEntries(), from+restoreCommitEvery-1)
		err := r.s.Entries(d.GetDatabase(), d.GetName(), from, to, func(e *raftv1.SeriesEntry) error {
			batch = append(batch, e)
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range batch {
			if err := r.putEntry(e); err != nil {
				return err
			}
		}
		if uint64(len(batch)) != to-from+1 {
			return fmt.Errorf("%w: the local journal of %q lacks entries %d to %d", ErrCorrupt, d.GetName(), from, to)
		}
		from = to + 1
	}
	return r.endSeries()
}

// newSeries makes a series' bucket in the new file.
func (r *Restorer) newSeries(d *raftv1.SeriesDefinition) error {
	key := seriesKey(d.GetDatabase(), d.GetName())
	b, err := r.tx.Bucket(bucketSeries).CreateBucket(key)
	if err != nil {
		return fmt.Errorf("%w: series %q of %q twice in the snapshot: %v", ErrCorrupt, d.GetName(), d.GetDatabase(), err)
	}
	if err := initSeriesBucket(b, d); err != nil {
		return err
	}
	r.cur = &rebuilding{key: key, def: d, head: raftv1.SeriesDefinition{ClockMs: d.GetClockMs()}}
	return nil
}

// putEntry writes the next entry of the current series, and its indexes, after checking its
// place in the chain.
func (r *Restorer) putEntry(e *raftv1.SeriesEntry) error {
	c := r.cur
	switch {
	case e.GetSeq() != c.head.Entries+1:
		return fmt.Errorf("%w: entry %d of %q follows entry %d", ErrCorrupt, e.GetSeq(), c.def.GetName(), c.head.Entries)
	case e.GetSeq() > c.def.GetEntries():
		return fmt.Errorf("%w: entry %d of %q is past its head (%d)", ErrCorrupt, e.GetSeq(), c.def.GetName(), c.def.GetEntries())
	case e.GetDatabase() != c.def.GetDatabase() || e.GetSeries() != c.def.GetName():
		return fmt.Errorf("%w: entry %d of %q names series %q of %q", ErrCorrupt, e.GetSeq(), c.def.GetName(), e.GetSeries(), e.GetDatabase())
	case !bytes.Equal(e.GetPrevHash(), c.head.HeadHash) || !bytes.Equal(e.GetHash(), entryHash(e)):
		return fmt.Errorf("%w: entry %d of %q does not hold to its chain", ErrCorrupt, e.GetSeq(), c.def.GetName())
	}
	if err := writeEntry(r.tx.Bucket(bucketSeries).Bucket(c.key), &c.head, e); err != nil {
		return err
	}
	r.pending++
	if r.pending >= restoreCommitEvery {
		return r.commit(true)
	}
	return nil
}

// writeEntry writes an entry that holds to its series' chain, and its indexes (requests,
// numbers), and moves head to it as issuing or voiding it did: a snapshot's restore and a
// backup's (RestoreSeries) put entries back through it.
func writeEntry(b *bbolt.Bucket, head *raftv1.SeriesDefinition, e *raftv1.SeriesEntry) error {
	v, err := marshal.Marshal(e)
	if err != nil {
		return fmt.Errorf("series: encode entry %d: %w", e.GetSeq(), err)
	}
	if err := b.Bucket(bucketEntries).Put(seqKey(e.GetSeq()), v); err != nil {
		return err
	}
	if err := b.Bucket(bucketRequests).Put([]byte(e.GetRequestId()), seqKey(e.GetSeq())); err != nil {
		return err
	}
	moves, err := putNumberUse(b.Bucket(bucketNumbers), e)
	if err != nil {
		return err
	}
	head.Entries, head.HeadHash, head.ClockMs = e.GetSeq(), e.GetHash(), e.GetTimeMs()
	if moves {
		head.CurrentPeriod, head.LastNumber = e.GetPeriod(), e.GetNumber()
	}
	if e.GetKind() == raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED {
		head.Issued++
	} else {
		head.Voided++
	}
	return nil
}

// putNumberUse records an entry in the numbers index, as Issue and Void do, and reports
// whether it took the next number (an issue, or a void of a number never issued).
func putNumberUse(numbers *bbolt.Bucket, e *raftv1.SeriesEntry) (bool, error) {
	key := numberKey(e.GetPeriod(), e.GetNumber())
	var use numberUse
	if row := numbers.Get(key); row != nil {
		var err error
		if use, err = decodeNumberUse(row); err != nil {
			return false, err
		}
	}
	moves := use.issued == 0
	if e.GetKind() == raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED {
		use.issued = e.GetSeq()
	} else {
		use.voided = e.GetSeq()
	}
	return moves, numbers.Put(key, use.bytes())
}

// commit ends the new file's transaction, and begins the next one if more follows.
func (r *Restorer) commit(more bool) error {
	err := r.tx.Commit()
	r.tx, r.pending = nil, 0
	if err != nil {
		return fmt.Errorf("series: restore: %w", err)
	}
	if more {
		if r.tx, err = r.db.Begin(true); err != nil {
			return fmt.Errorf("series: restore: %w", err)
		}
	}
	return nil
}

// endSeries checks that the series just streamed reached its head, and that the head is the
// one its entries make.
func (r *Restorer) endSeries() error {
	c := r.cur
	r.cur = nil
	if c == nil {
		return nil
	}
	d, h := c.def, &c.head
	if h.Entries != d.GetEntries() || !bytes.Equal(h.HeadHash, d.GetHeadHash()) {
		return fmt.Errorf("%w: series %q of %q ends at entry %d, its head is entry %d", ErrCorrupt, d.GetName(), d.GetDatabase(), h.Entries, d.GetEntries())
	}
	if h.Issued != d.GetIssued() || h.Voided != d.GetVoided() || h.ClockMs != d.GetClockMs() ||
		h.CurrentPeriod != d.GetCurrentPeriod() || h.LastNumber != d.GetLastNumber() {
		return fmt.Errorf("%w: the head of series %q of %q is not the one its entries make", ErrCorrupt, d.GetName(), d.GetDatabase())
	}
	return nil
}
