package series

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.etcd.io/bbolt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// restoreCommitEvery bounds a restore's write transaction, and so its memory.
const restoreCommitEvery = 10_000

// Restorer takes the series part of a snapshot, record by record, in the order Capture.Write
// emits them: Journal, then per series Definition and its Entry records; then Finish (or
// Abort). While the local journal holds everything the snapshot does (it is ahead: a restart
// from an older snapshot), it keeps the local file and skips the entries; otherwise it
// streams them into a new file beside series.db, checking each chain, and Finish swaps it in.
// Until Finish, series.db is untouched.
type Restorer struct {
	s       *Store
	err     error // the first error: every later call answers it
	journal *raftv1.SeriesJournalRecord
	series  uint64 // definitions taken

	// kept are the snapshot's definitions the local journal holds, while it holds them all.
	kept []*raftv1.SeriesDefinition
	// rebuilding: the new file and its open transaction.
	db      *bbolt.DB
	tx      *bbolt.Tx
	pending int
	cur     *rebuilding // the series whose entries come next
}

// rebuilding is the series being streamed into the new file, and the head its entries make.
type rebuilding struct {
	key  []byte
	def  *raftv1.SeriesDefinition
	head raftv1.SeriesDefinition
}

// Restore starts taking a snapshot. The FSM calls it from its apply goroutine, with no write
// Tx open.
func (s *Store) Restore() *Restorer { return &Restorer{s: s} }

// Journal takes the snapshot's first series record.
func (r *Restorer) Journal(j *raftv1.SeriesJournalRecord) error {
	if r.err != nil {
		return r.err
	}
	if r.journal != nil {
		return r.fail(fmt.Errorf("%w: a second journal record in the snapshot", ErrCorrupt))
	}
	r.journal = j
	if r.s.Applied() < j.GetAppliedIndex() {
		return r.fail(r.startRebuild())
	}
	return nil
}

// Definition takes a series' definition; its entries follow.
func (r *Restorer) Definition(d *raftv1.SeriesDefinition) error {
	if r.err != nil {
		return r.err
	}
	if r.journal == nil {
		return r.fail(fmt.Errorf("%w: a series definition before the journal record", ErrCorrupt))
	}
	if err := r.endSeries(); err != nil {
		return r.fail(err)
	}
	r.series++
	if err := checkDefinition(d); err != nil {
		return r.fail(err)
	}
	if r.db == nil {
		held, err := r.s.holds(d)
		if err != nil {
			return r.fail(err)
		}
		if held {
			r.kept = append(r.kept, d)
			return nil
		}
		if err := r.startRebuild(); err != nil {
			return r.fail(err)
		}
	}
	return r.fail(r.newSeries(d))
}

// Entry takes the next entry of the current series.
func (r *Restorer) Entry(e *raftv1.SeriesEntry) error {
	if r.err != nil {
		return r.err
	}
	if r.db == nil {
		if len(r.kept) == 0 {
			return r.fail(fmt.Errorf("%w: a series entry before its definition", ErrCorrupt))
		}
		return nil
	}
	if r.cur == nil {
		return r.fail(fmt.Errorf("%w: a series entry before its definition", ErrCorrupt))
	}
	return r.fail(r.putEntry(e))
}

// Finish ends the restore: a rebuilt file replaces series.db (renamed over it, the directory
// synced) and is reopened; a kept local file stays as it is.
func (r *Restorer) Finish() error {
	if r.err != nil {
		return r.err
	}
	if r.journal == nil {
		return r.fail(fmt.Errorf("%w: the snapshot has no series journal record", ErrCorrupt))
	}
	if err := r.endSeries(); err != nil {
		return r.fail(err)
	}
	if r.series != r.journal.GetSeries() {
		return r.fail(fmt.Errorf("%w: the snapshot announced %d series and held %d", ErrCorrupt, r.journal.GetSeries(), r.series))
	}
	if r.db == nil {
		return nil
	}
	if err := putApplied(r.tx, r.journal.GetAppliedIndex()); err != nil {
		return r.fail(err)
	}
	if err := r.commit(false); err != nil {
		return r.fail(err)
	}
	if err := r.db.Sync(); err != nil {
		return r.fail(fmt.Errorf("series: sync the restored journal: %w", err))
	}
	err := r.db.Close()
	r.db = nil
	if err != nil {
		return r.fail(fmt.Errorf("series: close the restored journal: %w", err))
	}
	return r.fail(r.s.swapIn(restorePath(r.s.path)))
}

// Abort drops the restore; series.db stays as it was.
func (r *Restorer) Abort() {
	if r.err == nil {
		r.err = errors.New("series: restore aborted")
	}
	r.dropNew()
}

// fail records err (if any) as the restore's end, dropping the new file.
func (r *Restorer) fail(err error) error {
	if err != nil && r.err == nil {
		r.err = err
		r.dropNew()
	}
	return err
}

func (r *Restorer) dropNew() {
	if r.db == nil {
		return
	}
	if r.tx != nil {
		_ = r.tx.Rollback()
		r.tx = nil
	}
	_ = r.db.Close()
	r.db = nil
	_ = os.Remove(restorePath(r.s.path))
}

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
	b := r.tx.Bucket(bucketSeries).Bucket(c.key)
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
	c.head.Entries, c.head.HeadHash, c.head.ClockMs = e.GetSeq(), e.GetHash(), e.GetTimeMs()
	if moves {
		c.head.CurrentPeriod, c.head.LastNumber = e.GetPeriod(), e.GetNumber()
	}
	if e.GetKind() == raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED {
		c.head.Issued++
	} else {
		c.head.Voided++
	}
	r.pending++
	if r.pending >= restoreCommitEvery {
		return r.commit(true)
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

// checkDefinition checks a definition from a snapshot as CheckCreate checks a new one.
func checkDefinition(d *raftv1.SeriesDefinition) error {
	err := CheckCreate(&raftv1.CreateSeries{
		Database: d.GetDatabase(), Name: d.GetName(), Format: d.GetFormat(), Period: d.GetPeriod(),
		Policy: d.GetPolicy(), ProposedAtMs: d.GetCreatedAtMs(), CreatedBy: d.GetCreatedBy(), RequestId: d.GetRequestId(),
	})
	if err == nil && d.GetDatabase() != databaseName(d.GetDatabase()) {
		err = fmt.Errorf("database name %q is not in its canonical form", d.GetDatabase())
	}
	if err != nil {
		return fmt.Errorf("%w: series %q in the snapshot: %v", ErrCorrupt, d.GetName(), err)
	}
	return nil
}

// holds reports whether the local journal holds a series up to a snapshot's head of it: the
// entry at the head's seq has the head's hash, so (through the chain) every entry before it
// is the snapshot's too.
func (s *Store) holds(d *raftv1.SeriesDefinition) (bool, error) {
	var held bool
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSeries).Bucket(seriesKey(d.GetDatabase(), d.GetName()))
		if b == nil {
			return nil
		}
		local, err := readDefinition(b)
		if err != nil || !sameCreation(local, d) {
			return nil
		}
		if d.GetEntries() == 0 {
			held = len(d.GetHeadHash()) == 0
			return nil
		}
		e, err := entryAt(b, d.GetEntries())
		held = err == nil && e != nil && bytes.Equal(e.GetHash(), d.GetHeadHash())
		return nil
	})
	return held, err
}

// sameCreation reports whether two definitions are of the same series as created.
func sameCreation(a, b *raftv1.SeriesDefinition) bool {
	return a.GetDatabase() == b.GetDatabase() && a.GetName() == b.GetName() && a.GetFormat() == b.GetFormat() &&
		a.GetPeriod() == b.GetPeriod() && a.GetPolicy() == b.GetPolicy() && a.GetCreatedAtMs() == b.GetCreatedAtMs() &&
		a.GetCreatedBy() == b.GetCreatedBy() && a.GetRequestId() == b.GetRequestId()
}

// swapIn renames a restored file over series.db, syncs the directory, and makes the file
// the store's; the old file closes once the reads under way leave it.
func (s *Store) swapIn(restored string) error {
	if err := os.Rename(restored, s.path); err != nil {
		return fmt.Errorf("series: move the restored journal into place: %w", err)
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return err
	}
	db, err := openDB(s.path, false)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.cur
	s.cur = &handle{db: db}
	s.mu.Unlock()
	if old == nil {
		_ = db.Close()
		return ErrClosed
	}
	return s.retire(old)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("series: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("series: sync %s: %w", dir, err)
	}
	return nil
}
