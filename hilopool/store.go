package hilopool

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/idnode/idnode/durablefile"
)

// pool is one key's numbers.
type pool struct {
	segments  []segment // not yet granted; see segment for the invariants
	lastGrant segment   // the newest range granted, whose unused tail Return takes back; zero if none
}

// Store is a node's HiLo pools, kept in one file and in memory.
//
// Every method is safe for concurrent use. One mutex guards everything, and a change is written
// and fsynced under it, so grants are serialised behind the disk (one fsync each). That is
// acceptable: a pool grant replaces a Raft round, which costs at least as much, and holding the
// lock is what makes "durable before answered" and "a failed write grants nothing" simple.
type Store struct {
	path  string
	write func(path string, data []byte, perm os.FileMode) error // durablefile.WriteFile; tests make it fail

	mu    sync.Mutex
	pools map[Key]pool // replaced, never modified in place, so a failed write leaves it as it was
}

// Open reads the pools at path. A missing file is an empty store; the file is created by the
// first change.
func Open(path string) (*Store, error) {
	s := &Store{path: path, write: durablefile.WriteFile, pools: map[Key]pool{}}
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
	if err == nil && p.lastGrant.overlaps(g) {
		err = fmt.Errorf("%v overlaps %v, granted from the pool", g, p.lastGrant)
	}
	if err != nil {
		return fmt.Errorf("hilopool: cannot add to pool %q/%q: %w; the cluster reserved these numbers "+
			"to this node twice, a bug: report it", key.Database, key.Tag, err)
	}
	return s.commit(key, pool{segments: segs, lastGrant: p.lastGrant})
}

// Grant takes a range of up to want (>= 1) numbers, all above `above`, from key's pool: from
// the lowest segment with numbers above `above`, contiguous, so shorter than want at that
// segment's end. Numbers at or below `above` leave the pool: they are gaps, which HiLo allows.
// The pool's new state is durable before Grant returns; when the write fails, nothing is
// granted and the pool is unchanged. ok is false, with a nil error, when the pool has no
// number above `above`.
func (s *Store) Grant(key Key, want, above int64) (low, high int64, ok bool, err error) {
	if want < 1 {
		return 0, 0, false, fmt.Errorf("hilopool: cannot grant %d numbers: want at least 1", want)
	}
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, found := s.pools[key]
	if !found {
		return 0, 0, false, nil
	}
	rest, g, ok := take(p.segments, want, above)
	if !ok {
		if len(p.segments) > 0 { // all at or below `above`: drop them
			err = s.commit(key, pool{segments: rest, lastGrant: p.lastGrant})
		}
		return 0, 0, false, err
	}
	if err := s.commit(key, pool{segments: rest, lastGrant: g}); err != nil {
		return 0, 0, false, err
	}
	return g.Low, g.High, true, nil
}

// Return gives back the unused tail last+1..end of the newest range granted from key's pool,
// if it is that range's tail: end is the range's high, no Grant for key came since, and
// low-1 <= last <= end. Then those numbers go back to the pool, durably, the newest range
// shrinks to low..last, and Return reports true. Otherwise it changes nothing and reports
// false: the caller then tries the cluster-wide return.
func (s *Store) Return(key Key, end, last int64) (bool, error) {
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pools[key]
	lg := p.lastGrant
	if lg == (segment{}) || end != lg.High || last < lg.Low-1 || last > end {
		return false, nil
	}
	if last == end {
		return true, nil // nothing unused
	}
	segs, err := insert(p.segments, segment{Low: last + 1, High: end})
	if err != nil {
		return false, fmt.Errorf("hilopool: cannot return to pool %q/%q: %w; a bug: report it", key.Database, key.Tag, err)
	}
	kept := segment{Low: lg.Low, High: last}
	if last < lg.Low {
		kept = segment{} // the whole range came back: nothing left to return
	}
	if err := s.commit(key, pool{segments: segs, lastGrant: kept}); err != nil {
		return false, err
	}
	return true, nil
}

// Remaining is how many numbers key's pool holds.
func (s *Store) Remaining(key Key) int64 {
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	return total(s.pools[key].segments)
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
	return s.replace(map[Key]pool{})
}

// commit makes p key's pool: on disk first, then in memory. s.mu is held.
func (s *Store) commit(key Key, p pool) error {
	next := maps.Clone(s.pools)
	next[key] = p
	return s.replace(next)
}

// replace makes pools the store's content: on disk first, then in memory, so nothing is ever
// answered from a state that is not durable. s.mu is held.
func (s *Store) replace(pools map[Key]pool) error {
	data, err := encode(pools)
	if err == nil {
		err = s.write(s.path, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("hilopool: cannot save the HiLo pools to %s: %w; nothing was changed. "+
			"Check the disk (space, permissions, errors in the kernel log)", s.path, err)
	}
	s.pools = pools
	return nil
}

func sortedKeys(pools map[Key]pool) []Key {
	return slices.SortedFunc(maps.Keys(pools), compareKeys)
}
