package series

import (
	"path/filepath"
	"strings"
	"testing"

	"go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// journalOf writes a closed series.db with a series "inv" of n entries (issues, and a void of
// number 2) and answers its path.
func journalOf(t *testing.T, n int) string {
	path := filepath.Join(t.TempDir(), "series.db")
	s := mustOpen(t, path)
	s.create("inv", "INV-{year}-{n:03}", yearly, gapless, 0)
	for i := 0; i < n-1; i++ {
		s.mustIssue("inv", "r"+string(rune('a'+i)), at(2026, 1, 1, 0, 0, i))
	}
	if _, err := s.void(voidOf("inv", "2026", 2, "v", 0)); err != nil {
		t.Fatal(err)
	}
	mustVerifyClean(t, s.Store, "inv")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// editEntries opens series.db with bbolt directly and edits the entries bucket of "inv".
func editEntries(t *testing.T, path string, edit func(entries *bbolt.Bucket) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error {
		return edit(tx.Bucket(bucketSeries).Bucket(seriesKey("", "inv")).Bucket(bucketEntries))
	}); err != nil {
		t.Fatal(err)
	}
}

// rewrite changes the entry at seq and stores it re-marshalled, its hash as it was.
func rewrite(seq uint64, change func(e *raftv1.SeriesEntry)) func(*bbolt.Bucket) error {
	return func(entries *bbolt.Bucket) error {
		e, err := decodeEntry(entries.Get(seqKey(seq)))
		if err != nil {
			return err
		}
		change(e)
		v, err := proto.Marshal(e)
		if err != nil {
			return err
		}
		return entries.Put(seqKey(seq), v)
	}
}

func TestVerifyNamesTheTamperedEntry(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   func(*bbolt.Bucket) error
		seq    uint64
		reason string
	}{
		{"document hash", rewrite(3, func(e *raftv1.SeriesEntry) { e.DocumentHash = []byte("forged") }), 3, "was changed"},
		{"number", rewrite(4, func(e *raftv1.SeriesEntry) { e.Number = 9 }), 4, "was changed"},
		{"field", rewrite(1, func(e *raftv1.SeriesEntry) { e.Fields[0].Value = "1.00" }), 1, "was changed"},
		{"void reason", rewrite(6, func(e *raftv1.SeriesEntry) { e.Reason = "other" }), 6, "was changed"},
		{"rehashed", rewrite(2, func(e *raftv1.SeriesEntry) { e.DocumentHash = nil; e.Hash = entryHash(e) }), 3, "prev_hash"},
		{"deleted", func(b *bbolt.Bucket) error { return b.Delete(seqKey(4)) }, 4, "entry 4 is missing"},
		{"last deleted", func(b *bbolt.Bucket) error { return b.Delete(seqKey(6)) }, 6, "entries 6 to 6 are missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := journalOf(t, 6)
			editEntries(t, path, c.edit)
			s := mustOpen(t, path)
			r, err := s.Verify("", "INV")
			if err != nil {
				t.Fatal(err)
			}
			if r.Break == nil || r.Break.Seq != c.seq || !strings.Contains(r.Break.Reason, c.reason) {
				t.Fatalf("break %+v, want seq %d with %q", r.Break, c.seq, c.reason)
			}
		})
	}
}

func TestVerifyCatchesARewrittenChain(t *testing.T) {
	// A forger who rehashes the whole chain still breaks the numbering: number 3 of 2026
	// issued twice.
	path := journalOf(t, 6)
	editEntries(t, path, func(entries *bbolt.Bucket) error {
		var prev []byte
		for seq := uint64(1); seq <= 6; seq++ {
			e, err := decodeEntry(entries.Get(seqKey(seq)))
			if err != nil {
				return err
			}
			if seq == 4 {
				e.Number, e.Id = 3, "INV-2026-003"
			}
			e.PrevHash = prev
			e.Hash = entryHash(e)
			prev = e.Hash
			v, _ := proto.Marshal(e)
			if err := entries.Put(seqKey(seq), v); err != nil {
				return err
			}
		}
		return nil
	})
	s := mustOpen(t, path)
	r, err := s.Verify("", "inv")
	if err != nil {
		t.Fatal(err)
	}
	if r.Break == nil || r.Break.Seq != 4 || !strings.Contains(r.Break.Reason, "next number was 4") {
		t.Fatalf("break %+v, want seq 4 out of order", r.Break)
	}
}
