package series

import (
	"bytes"
	"fmt"

	"go.etcd.io/bbolt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// List returns a database's series, sorted by lower-case name.
func (s *Store) List(database string) ([]*raftv1.SeriesDefinition, error) {
	var defs []*raftv1.SeriesDefinition
	err := s.view(func(tx *bbolt.Tx) error {
		prefix := databasePrefix(database)
		c := tx.Bucket(bucketSeries).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			def, err := readDefinition(tx.Bucket(bucketSeries).Bucket(k))
			if err != nil {
				return err
			}
			defs = append(defs, def)
		}
		return nil
	})
	return defs, err
}

// Definition is a series and its head, or ErrNoSeries.
func (s *Store) Definition(database, name string) (*raftv1.SeriesDefinition, error) {
	var def *raftv1.SeriesDefinition
	err := s.view(func(tx *bbolt.Tx) error {
		b, err := seriesBucket(tx, database, name)
		if err == nil {
			def, err = readDefinition(b)
		}
		return err
	})
	return def, err
}

// Entries calls fn on the series' entries with fromSeq ≤ seq ≤ toSeq, in seq order, until fn
// returns an error (which Entries returns). It walks only the entries that exist, whatever
// the span asked for.
func (s *Store) Entries(database, name string, fromSeq, toSeq uint64, fn func(*raftv1.SeriesEntry) error) error {
	return s.view(func(tx *bbolt.Tx) error {
		b, err := seriesBucket(tx, database, name)
		if err != nil {
			return err
		}
		c, last := b.Bucket(bucketEntries).Cursor(), seqKey(toSeq)
		for k, v := c.Seek(seqKey(fromSeq)); k != nil && bytes.Compare(k, last) <= 0; k, v = c.Next() {
			e, err := decodeEntry(v)
			if err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// Find returns the entry a request id made in the series, or nil when it made none.
func (s *Store) Find(database, name, requestID string) (*raftv1.SeriesEntry, error) {
	var e *raftv1.SeriesEntry
	err := s.view(func(tx *bbolt.Tx) error {
		b, err := seriesBucket(tx, database, name)
		if err == nil {
			e, err = byRequest(b, requestID)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("series: find request %q: %w", requestID, err)
	}
	return e, nil
}
