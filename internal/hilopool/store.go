package hilopool

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/idnode/idnode/internal/durablefile"
	"github.com/idnode/idnode/internal/hilogrant"
)

// pool is one key's numbers.
type pool struct {
	segments []segment       // not yet granted; see segment for the invariants
	grants   hilogrant.Stack // the ranges granted that Return may still take back (their tails)
}

// Store is a node's HiLo pools, kept in one file and in memory.
//
// Every method is safe for concurrent use. A change is made in memory under one mutex and
// answered only once a write of the whole file that holds it has been fsynced. Changes made
// while a write is on the disk wait together and go to disk in the next write (group commit):
// many grants cost one fsync, so a busy node grants as fast as Raft shares its own fsyncs.
//
// A failed write changes nothing that anyone is told about: every change in it, and every
// change made since (they were made on top of it), is undone and answered with the error. So
// a number is answered only from a state that is on disk.
type Store struct {
	path  string
	write func(path string, data []byte, perm os.FileMode) error // durablefile.WriteFile; tests make it fail

	mu      sync.Mutex
	pools   map[Key]pool // the newest state; a pool value is replaced, never modified in place
	durable map[Key]pool // the state on disk, which a failed write goes back to
	pending *batch       // the changes not yet in a write, nil if none
	writing bool         // a write is on the disk
	written *sync.Cond   // signalled when a write ends; on mu
}

// batch is the changes that go to disk in one write, and how that write ended.
type batch struct {
	done bool
	err  error
}

// Open reads the pools at path. A missing file is an empty store; the file is created by the
// first change.
func Open(path string) (*Store, error) {
	s := &Store{path: path, write: durablefile.WriteFile, pools: map[Key]pool{}, durable: map[Key]pool{}}
	s.written = sync.NewCond(&s.mu)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hilopool: cannot read the HiLo pools file %s: %w; fix its permissions or storage and restart", path, err)
	}
	if s.pools, err = decode(data); err != nil {
		return nil, fmt.Errorf("hilopool: the HiLo pools file %s is corrupt: %w. Restore nothing older: "+
			"an older copy would grant numbers again. Remove the file and restart: the numbers in it "+
			"become gaps, which HiLo allows, and the node reserves new pools", path, err)
	}
	s.durable = maps.Clone(s.pools)
	return s, nil
}

// Add puts the numbers low..high (both included, 1 <= low <= high) into key's pool, durably,
// before it returns. The cluster reserved them to this node, so they cannot overlap the pool
// or its newest grant; an overlap is refused, as it means a bug elsewhere.
func (s *Store) Add(key Key, low, high int64) error {
	g := segment{Low: low, High: high}
	if key.Database == "" || key.Tag == "" {
		return fmt.Errorf("hilopool: cannot add %v to a pool without a database or tag (%q/%q)", g, key.Database, key.Tag)
	}
	if low < 1 || high < low {
		return fmt.Errorf("hilopool: cannot add %v: want 1 <= low <= high", g)
	}
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pools[key]
	segs, err := insert(p.segments, g)
	for _, granted := range []hilogrant.Grant{p.grants.Newest, p.grants.Below} {
		if err == nil && granted.ID != "" && g.overlaps(segment{Low: granted.Low, High: granted.High}) {
			err = fmt.Errorf("%v overlaps %d..%d, granted from the pool", g, granted.Low, granted.High)
		}
	}
	if err != nil {
		return fmt.Errorf("hilopool: cannot add to pool %q/%q: %w; the cluster reserved these numbers "+
			"to this node twice, a bug: report it", key.Database, key.Tag, err)
	}
	return s.commit(key, pool{segments: segs, grants: p.grants})
}

// Grant takes a range of least..want numbers (1 <= least <= want), all above `above`, from
// key's pool: contiguous, from the lowest segment that holds at least least numbers above
// `above`. Lower segments, and numbers at or below `above`, stay in the pool for other
// requests. The pool's new state is durable before Grant returns; when the write fails,
// nothing is granted and the pool is unchanged. ok is false, with a nil error and nothing
// changed, when no segment holds least numbers above `above`. The range is granted as id:
// Return takes its tail back only from a caller that presents id (package hilogrant).
func (s *Store) Grant(key Key, id string, want, least, above int64) (low, high int64, ok bool, err error) {
	if least < 1 || want < least {
		return 0, 0, false, fmt.Errorf("hilopool: cannot grant %d..%d numbers: want 1 <= least <= want", least, want)
	}
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, found := s.pools[key]
	if !found {
		return 0, 0, false, nil
	}
	rest, g, ok := take(p.segments, want, least, above)
	if !ok {
		return 0, 0, false, nil
	}
	grants := p.grants
	grants.Push(hilogrant.Grant{ID: id, Low: g.Low, High: g.High})
	if err := s.commit(key, pool{segments: rest, grants: grants}); err != nil {
		return 0, 0, false, err
	}
	return g.Low, g.High, true, nil
}

// Return gives back the unused tail last+1..end of the range granted as id, by the rule of
// package hilogrant: only the newest grant of the pool (or the one below it, once the newest
// came back whole), once, and only with its id. Then those numbers go back to the pool,
// durably, and Return reports true. It reports false, changing nothing, when id is not the
// pool's newest grant: the caller then tries the cluster-wide return. A return that cannot be
// right (no id, last above end, not the grant's range) is an error of package hilogrant.
func (s *Store) Return(key Key, id string, end, last int64) (bool, error) {
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pools[key]
	grants := p.grants
	ok, err := grants.Return(id, end, last)
	if err != nil || !ok {
		return false, err
	}
	segs := p.segments
	if last < end {
		if segs, err = insert(p.segments, segment{Low: last + 1, High: end}); err != nil {
			return false, fmt.Errorf("hilopool: cannot return to pool %q/%q: %w; a bug: report it", key.Database, key.Tag, err)
		}
	}
	if err := s.commit(key, pool{segments: segs, grants: grants}); err != nil {
		return false, err
	}
	return true, nil
}

// Remaining is how many numbers key's pool holds.
func (s *Store) Remaining(key Key) int64 { return s.RemainingAbove(key, 0) }

// RemainingAbove is how many numbers above n key's pool holds.
func (s *Store) RemainingAbove(key Key, n int64) int64 {
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	var above int64
	for _, g := range s.pools[key].segments {
		if g.High > n {
			above += g.High - max(g.Low, n+1) + 1
		}
	}
	return above
}

// Keys lists the pools, sorted by database then tag (tags folded), empty ones included: they
// are the ones to refill.
func (s *Store) Keys() []Key {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedKeys(s.pools)
}

// Drop forgets every pool, durably: the node was removed from the cluster and its pools are
// retired with it.
func (s *Store) Drop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pools = map[Key]pool{}
	return s.settle(s.change())
}

// commit makes p key's pool, at most maxSegments of it, and returns once that is on disk. s.mu
// is held.
func (s *Store) commit(key Key, p pool) error {
	p.segments = bounded(p.segments)
	s.pools[key] = p
	return s.settle(s.change())
}

// change returns the batch that records a change just made to s.pools. s.mu is held.
func (s *Store) change() *batch {
	if s.pending == nil {
		s.pending = &batch{}
	}
	return s.pending
}

// settle waits until b is on disk, writing it (and whatever joined it) when no write is on
// the disk, and returns how its write ended. s.mu is held; settle releases it while waiting.
func (s *Store) settle(b *batch) error {
	for !b.done {
		if s.writing {
			s.written.Wait()
			continue
		}
		s.writePending()
	}
	return b.err
}

// writePending writes the newest state, which holds every pending change. s.mu is held, and
// released during the write so that new changes can join the next batch meanwhile.
func (s *Store) writePending() {
	b, state := s.pending, maps.Clone(s.pools)
	s.pending, s.writing = nil, true
	s.mu.Unlock()
	data, err := encode(state)
	if err == nil {
		err = s.write(s.path, data, 0o644)
	}
	s.mu.Lock()
	s.writing = false
	if err != nil {
		err = fmt.Errorf("hilopool: cannot save the HiLo pools to %s: %w; nothing was changed. "+
			"Check the disk (space, permissions, errors in the kernel log)", s.path, err)
		// The changes made during the write were made on top of the failed ones: undo them too.
		s.pools = maps.Clone(s.durable)
		if next := s.pending; next != nil {
			next.done, next.err = true, err
			s.pending = nil
		}
	} else {
		s.durable = state
	}
	b.done, b.err = true, err
	s.written.Broadcast()
}

func sortedKeys(pools map[Key]pool) []Key {
	return slices.SortedFunc(maps.Keys(pools), compareKeys)
}
