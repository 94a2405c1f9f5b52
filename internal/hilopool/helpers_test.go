package hilopool

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

var users = Key{Database: "default", Tag: "users"}

// grantIDs is the id each range mustGrant got was granted as (a string), by grantRef, so that
// mustReturn can present it; grantSeq numbers them.
var (
	grantIDs sync.Map
	grantSeq atomic.Int64
)

type grantRef struct {
	path string
	key  Key
	high int64
}

// idOf is the id mustGrant granted key's range ending at end as, from s's file ("" if none).
func idOf(s *Store, key Key, end int64) string {
	id, _ := grantIDs.Load(grantRef{s.path, key.folded(), end})
	str, _ := id.(string)
	return str
}

func poolsPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "hilo-pools.json")
}

func mustOpen(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return s
}

func mustAdd(t *testing.T, s *Store, key Key, low, high int64) {
	t.Helper()
	if err := s.Add(key, low, high); err != nil {
		t.Fatalf("Add(%v, %d, %d): %v", key, low, high, err)
	}
}

// mustGrant grants and fails the test unless a range came back.
func mustGrant(t *testing.T, s *Store, key Key, want, above int64) segment {
	t.Helper()
	id := fmt.Sprintf("grant-%d", grantSeq.Add(1))
	low, high, ok, err := s.Grant(key, id, want, 1, above)
	if err != nil || !ok {
		t.Fatalf("Grant(%v, %d, %d) = %d..%d, ok %v, err %v; want a range", key, want, above, low, high, ok, err)
	}
	grantIDs.Store(grantRef{s.path, key.folded(), high}, id)
	if high < low || high-low+1 > want || low <= above {
		t.Fatalf("Grant(%v, %d, %d) = %d..%d: not 1..want numbers above %d", key, want, above, low, high, above)
	}
	return segment{Low: low, High: high}
}

// mustNotGrant fails the test unless Grant reports an empty pool.
func mustNotGrant(t *testing.T, s *Store, key Key, want, above int64) {
	t.Helper()
	low, high, ok, err := s.Grant(key, "none", want, 1, above)
	if err != nil || ok {
		t.Fatalf("Grant(%v, %d, %d) = %d..%d, ok %v, err %v; want nothing, no error", key, want, above, low, high, ok, err)
	}
}

func mustReturn(t *testing.T, s *Store, key Key, end, last int64) bool {
	t.Helper()
	ok, err := s.Return(key, idOf(s, key, end), end, last)
	if err != nil {
		t.Fatalf("Return(%v, %d, %d): %v", key, end, last, err)
	}
	return ok
}

// segmentsOf is a copy of key's pool.
func segmentsOf(s *Store, key Key) []segment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pools[key.folded()].segments)
}

func wantSegments(t *testing.T, s *Store, key Key, want ...segment) {
	t.Helper()
	if got := segmentsOf(s, key); !slices.Equal(got, want) {
		t.Fatalf("pool %v = %v, want %v", key, got, want)
	}
}

// encoded is the store's state as its file should hold it.
func encoded(t *testing.T, s *Store) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := encode(s.pools)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkDisjoint fails the test if two of ranges share a number.
func checkDisjoint(t *testing.T, ranges []segment) {
	t.Helper()
	sorted := slices.SortedFunc(slices.Values(ranges), func(a, b segment) int { return cmp.Compare(a.Low, b.Low) })
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1].overlaps(sorted[i]) {
			t.Fatalf("number granted twice: ranges %v and %v overlap", sorted[i-1], sorted[i])
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
