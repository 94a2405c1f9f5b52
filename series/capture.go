package series

import (
	"bytes"
	"fmt"

	"go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Capture is a point-in-time view of the journal for a snapshot: a bbolt read transaction,
// so writes go on while the snapshot is persisted.
type Capture struct {
	s      *Store
	h      *handle
	tx     *bbolt.Tx
	prefix []byte // the keys of the series it writes: all, or one database's
}

// Capture takes the view. The FSM calls it between batches (no write tx open) so the view
// matches the FSM state snapshotted with it. Release it when done.
func (s *Store) Capture() (*Capture, error) { return s.capture(nil) }

// CaptureDatabase takes the view of one database's series (a backup of that database).
func (s *Store) CaptureDatabase(database string) (*Capture, error) {
	return s.capture(databasePrefix(database))
}

func (s *Store) capture(prefix []byte) (*Capture, error) {
	h, err := s.acquire()
	if err != nil {
		return nil, err
	}
	tx, err := h.db.Begin(false)
	if err != nil {
		s.release(h)
		return nil, fmt.Errorf("series: capture: %w", err)
	}
	return &Capture{s: s, h: h, tx: tx, prefix: prefix}, nil
}

// Write emits the view: a SeriesJournalRecord, then for each series in key order (database,
// lower-case name) its SeriesDefinition and its SeriesEntry records in seq order. Two
// replicas with the same journal emit the same records. Memory stays flat: one entry at a time.
func (c *Capture) Write(emit func(proto.Message) error) error {
	var count uint64
	if err := c.eachSeries(func(*bbolt.Bucket) error { count++; return nil }); err != nil {
		return err
	}
	if err := emit(&raftv1.SeriesJournalRecord{AppliedIndex: readApplied(c.tx), Series: count}); err != nil {
		return err
	}
	return c.eachSeries(func(b *bbolt.Bucket) error {
		def, err := readDefinition(b)
		if err != nil {
			return err
		}
		if err := emit(def); err != nil {
			return err
		}
		return b.Bucket(bucketEntries).ForEach(func(_, v []byte) error {
			e, err := decodeEntry(v)
			if err != nil {
				return err
			}
			return emit(e)
		})
	})
}

// eachSeries calls fn on the bucket of each series the view writes, in key order.
func (c *Capture) eachSeries(fn func(*bbolt.Bucket) error) error {
	all := c.tx.Bucket(bucketSeries)
	cur := all.Cursor()
	for k, _ := cur.Seek(c.prefix); k != nil && bytes.HasPrefix(k, c.prefix); k, _ = cur.Next() {
		if err := fn(all.Bucket(k)); err != nil {
			return err
		}
	}
	return nil
}

// Release ends the view.
func (c *Capture) Release() {
	_ = c.tx.Rollback()
	c.s.release(c.h)
}
