// Package series is the on-disk journal of fiscal series: gapless, audited
// numbering whose entries are chained by hash. The journal grows for ever, so it lives in
// series.db (bbolt), not in the FSM's memory, and streams into and out of Raft snapshots.
// See DESIGN.md.
package series

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.etcd.io/bbolt"
)

// initialMmapSize is mapped at open so that a long snapshot read (which holds the mmap lock)
// rarely blocks a write that grows the file.
const initialMmapSize = 256 << 20

// openTimeout bounds the wait for another process's lock on the file.
const openTimeout = 5 * time.Second

// Store is series.db. Writes come from one goroutine (the FSM's apply loop) through Tx;
// reads, captures and a restore's swap may run on any other.
type Store struct {
	path string
	mu   sync.Mutex // guards cur and its refs
	cur  *handle
}

// handle is one open bbolt file and its users: a restore swaps in a new file while reads of
// the old one finish, and the old one closes when its last user leaves.
type handle struct {
	db      *bbolt.DB
	refs    int
	retired bool
}

// Open opens (or creates) series.db at path, removing what an interrupted restore left.
func Open(path string) (*Store, error) {
	if err := os.Remove(restorePath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("series: remove the file of an interrupted restore: %w", err)
	}
	db, err := openDB(path, false)
	if err != nil {
		return nil, err
	}
	return &Store{path: path, cur: &handle{db: db}}, nil
}

// openDB opens a bbolt file and makes its top-level buckets. noSync is for a restore's new
// file, synced once at its end.
func openDB(path string, noSync bool) (*bbolt.DB, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout: openTimeout, InitialMmapSize: initialMmapSize, NoSync: noSync,
		FreelistType: bbolt.FreelistMapType,
	})
	if err != nil {
		return nil, fmt.Errorf("series: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketSeries} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("series: prepare %s: %w", path, err)
	}
	return db, nil
}

func restorePath(path string) string { return path + ".restore" }

// Close closes the file once the reads and captures under way end.
func (s *Store) Close() error {
	s.mu.Lock()
	h := s.cur
	s.cur = nil
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	return s.retire(h)
}

// acquire returns the current file, which stays open until release is called.
func (s *Store) acquire() (*handle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return nil, ErrClosed
	}
	s.cur.refs++
	return s.cur, nil
}

func (s *Store) release(h *handle) {
	s.mu.Lock()
	h.refs--
	last := h.retired && h.refs == 0
	s.mu.Unlock()
	if last {
		_ = h.db.Close()
	}
}

// retire closes h now if nobody uses it, else when its last user releases it.
func (s *Store) retire(h *handle) error {
	s.mu.Lock()
	h.retired = true
	idle := h.refs == 0
	s.mu.Unlock()
	if idle {
		return h.db.Close()
	}
	return nil
}

// view runs fn in a read transaction of the current file.
func (s *Store) view(fn func(*bbolt.Tx) error) error {
	h, err := s.acquire()
	if err != nil {
		return err
	}
	defer s.release(h)
	return h.db.View(fn)
}

// Applied is the raft index of the last series command applied (0: none). Commands at or
// below it are replays.
func (s *Store) Applied() uint64 {
	var applied uint64
	_ = s.view(func(tx *bbolt.Tx) error {
		applied = readApplied(tx)
		return nil
	})
	return applied
}

func putApplied(tx *bbolt.Tx, index uint64) error {
	return tx.Bucket(bucketMeta).Put(keyApplied, binary.BigEndian.AppendUint64(nil, index))
}
