package hilopool

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/idnode/idnode/internal/hilogrant"
)

// Progress is what the cluster records of a pool. Before a node grants above the last mark
// it published, it publishes through Raft a new mark per pool: the highest number it may have
// granted from it. A node that starts drops every number at or below the cluster's mark from
// the pools it read, so an older copy of the pools file costs a gap, never a repeat.

// RunEnd returns the end of the run of numbers in key's pool that continues right after n:
// the High of the segment that starts at n+1, or n when none does. A grant that ends at n marks
// its pool up to RunEnd(n), so the rest of the segment it came from needs no new mark.
func (s *Store) RunEnd(key Key, n int64) int64 {
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.pools[key].segments {
		if n < g.Low {
			if g.Low-1 == n {
				return g.High
			}
			break
		}
	}
	return n
}

// DropThrough removes every number at or below mark from key's pool, durably: they may have
// been granted by an earlier run of this node whose pools file was newer than this one. No
// grant that reaches down to mark stays returnable, so nothing can be returned into it.
func (s *Store) DropThrough(key Key, mark int64) error {
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, found := s.pools[key]
	if !found || mark < 1 {
		return nil
	}
	var segs []segment
	for _, g := range p.segments {
		if g.High <= mark {
			continue
		}
		g.Low = max(g.Low, mark+1)
		segs = append(segs, g)
	}
	grants := p.grants
	for _, g := range []hilogrant.Grant{grants.Newest, grants.Below} {
		if g != (hilogrant.Grant{}) && g.Low <= mark {
			grants.Clear()
		}
	}
	if total(segs) == total(p.segments) && grants == p.grants { // segs is a subset: unchanged
		return nil
	}
	return s.commit(key, pool{segments: segs, grants: grants})
}

// Forget removes key's pool, durably: it is not this node's (the cluster never reserved numbers
// of its tag to this node's member ID), so its numbers are someone else's to hand out.
func (s *Store) Forget(key Key) error {
	key = key.folded()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, found := s.pools[key]; !found {
		return nil
	}
	delete(s.pools, key)
	return s.settle(s.change())
}

// FileDigest is the SHA-256 of the pools file as it is on disk, of nothing when there is none.
// A node records it in the cluster at a clean stop (the seal) and compares it at the next
// start: the same digest is that very file, not an older copy, and keeps its pools whole.
func (s *Store) FileDigest() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(s.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("hilopool: cannot read the HiLo pools file %s: %w", s.path, err)
	}
	sum := sha256.Sum256(data)
	return sum[:], nil
}
