package series

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.etcd.io/bbolt"

	"github.com/idnode/idnode/internal/durablefile"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

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
	// db and tx are the new file and its open transaction, while the restore rebuilds the
	// journal; pending counts the entries written in tx.
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

// SkipsEntries reports whether Entry would ignore the entries that come now (the local file
// holds them): a caller may skip decoding them, which is most of a restart's restore.
func (r *Restorer) SkipsEntries() bool { return r.err == nil && r.db == nil && len(r.kept) > 0 }

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

// checkDefinition checks a definition from a snapshot as CheckCreate checks a new one.
func checkDefinition(d *raftv1.SeriesDefinition) error {
	if err := checkCreation(d); err != nil {
		return fmt.Errorf("%w: series %q in the snapshot: %v", ErrCorrupt, d.GetName(), err)
	}
	return nil
}

// checkCreation checks what a definition says of its series' creation as CheckCreate checks a
// new series, and that its database is named canonically.
func checkCreation(d *raftv1.SeriesDefinition) error {
	err := CheckCreate(&raftv1.CreateSeries{
		Database: d.GetDatabase(), Name: d.GetName(), Format: d.GetFormat(), Period: d.GetPeriod(),
		Policy: d.GetPolicy(), ProposedAtMs: d.GetCreatedAtMs(), CreatedBy: d.GetCreatedBy(), RequestId: d.GetRequestId(),
	})
	if err == nil && d.GetDatabase() != databaseName(d.GetDatabase()) {
		err = fmt.Errorf("%w: database name %q is not in its canonical form", ErrBadInput, d.GetDatabase())
	}
	return err
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
	if err := durablefile.SyncDir(filepath.Dir(s.path)); err != nil {
		return fmt.Errorf("series: sync %s: %w", filepath.Dir(s.path), err)
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
