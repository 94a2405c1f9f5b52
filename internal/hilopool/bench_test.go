package hilopool

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkGrant is what one range granted from a pool costs on this machine's disk: the whole
// file written and fsynced, renamed over the old one and the directory fsynced, under the
// store's one lock. With 16 goroutines granting at once the ns/op stays about the same: they
// wait for the lock, so a node grants at most one range per disk write.
func BenchmarkGrant(b *testing.B) {
	open := func(b *testing.B) *Store {
		s, err := Open(filepath.Join(b.TempDir(), "hilo-pools.json"))
		if err != nil {
			b.Fatal(err)
		}
		// Numbers for every grant of the run, added in one write.
		if err := s.Add(users, 1, int64(b.N+1)*32); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		return s
	}
	grant := func(b *testing.B, s *Store) bool {
		if _, _, ok, err := s.Grant(users, "bench", 32, 1, 0); err != nil || !ok {
			b.Errorf("Grant: ok %v, err %v", ok, err)
			return false
		}
		return true
	}
	b.Run("callers=1", func(b *testing.B) {
		s := open(b)
		for range b.N {
			if !grant(b, s) {
				return
			}
		}
	})
	b.Run("callers=16", func(b *testing.B) {
		s := open(b)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for next.Add(1) <= int64(b.N) {
					if !grant(b, s) {
						return
					}
				}
			})
		}
		wg.Wait()
	})
}
