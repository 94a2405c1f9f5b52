package series

import (
	"os"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// capture is everything Capture.Write emits.
func capture(t testing.TB, s *Store) []proto.Message {
	t.Helper()
	c, err := s.Capture()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	var records []proto.Message
	if err := c.Write(func(m proto.Message) error {
		records = append(records, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return records
}

// restore streams records into s.
func restore(s *Store, records []proto.Message) error {
	r := s.Restore()
	for _, m := range records {
		var err error
		switch m := m.(type) {
		case *raftv1.SeriesJournalRecord:
			err = r.Journal(m)
		case *raftv1.SeriesDefinition:
			err = r.Definition(m)
		case *raftv1.SeriesEntry:
			err = r.Entry(m)
		}
		if err != nil {
			r.Abort()
			return err
		}
	}
	return r.Finish()
}

func mustRestore(t testing.TB, s *Store, records []proto.Message) {
	t.Helper()
	if err := restore(s, records); err != nil {
		t.Fatal(err)
	}
}

func sameRecords(t *testing.T, got, want []proto.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		g, _ := marshal.Marshal(got[i])
		w, _ := marshal.Marshal(want[i])
		if string(g) != string(w) {
			t.Fatalf("record %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// journal fills a store with two databases' series, voids included.
func journal(t testing.TB) *testStore {
	s := mustNew(t)
	s.create("inv", "INV-{year}-{n:04}", yearly, gapless, 0)
	s.create("rec", "R{n}", 0, gaps, 0)
	s.inTx(func(tx *Tx) {
		if _, err := tx.Create(s.next(), &raftv1.CreateSeries{Database: "shop", Name: "Credit", Format: "CN{n}"}); err != nil {
			t.Fatal(err)
		}
	})
	for i := 0; i < 30; i++ {
		s.mustIssue("inv", "i"+string(rune('A'+i)), at(2026, 12, 31, 23, 59, 30+i))
		s.mustIssue("rec", "r"+string(rune('A'+i)), 0)
	}
	if _, err := s.void(voidOf("inv", "2026", 3, "v1", 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.void(voidOf("rec", "", 31, "v2", 0)); err != nil {
		t.Fatal(err)
	}
	var r []IssueResult
	s.inTx(func(tx *Tx) {
		r = tx.Issue(s.next(), &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{{Database: "shop", Series: "credit", RequestId: "c"}}})
	})
	if r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	return s
}

func TestSnapshotRoundTripRebuilds(t *testing.T) {
	src := journal(t)
	records := capture(t, src.Store)
	if j := records[0].(*raftv1.SeriesJournalRecord); j.GetAppliedIndex() != src.index || j.GetSeries() != 3 {
		t.Fatalf("journal record %v", j)
	}
	dst := mustNew(t)
	mustRestore(t, dst.Store, records)

	sameRecords(t, capture(t, dst.Store), records)
	if dst.Applied() != src.index {
		t.Fatalf("restored applied %d, want %d", dst.Applied(), src.index)
	}
	for _, db := range []string{"", "shop"} {
		a, _ := src.List(db)
		b, _ := dst.List(db)
		sameRecords(t, messages(b), messages(a))
	}
	for _, name := range []string{"inv", "rec"} {
		if a, b := mustVerifyClean(t, src.Store, name), mustVerifyClean(t, dst.Store, name); a != b {
			t.Fatalf("verify %q: %+v after restore, %+v before", name, b, a)
		}
	}
	// The indexes were rebuilt: retries, voids and the numbering go on as on the source.
	dst.index = src.index
	for _, s := range []*testStore{src, dst} {
		if e, err := s.issue("inv", "iA", 0); err != nil || e.GetSeq() != 1 {
			t.Fatalf("retry after restore: %v, %v", e, err)
		}
		if _, err := s.void(voidOf("inv", "2026", 3, "v3", 0)); err == nil {
			t.Fatal("voided a voided number after restore")
		}
		if e := s.mustIssue("inv", "next", at(2027, 1, 1, 0, 0, 0)); e.GetId() != "INV-2027-0001" {
			t.Fatalf("issued %s after restore", e.GetId())
		}
		if _, err := s.void(voidOf("inv", "2027", 1, "v4", 0)); err != nil {
			t.Fatal(err)
		}
	}
	sameRecords(t, capture(t, dst.Store), capture(t, src.Store))
}

func messages[T proto.Message](list []T) []proto.Message {
	out := make([]proto.Message, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}

func TestSnapshotFastPathKeepsTheLocalFile(t *testing.T) {
	s := journal(t)
	records := capture(t, s.Store)
	s.mustIssue("inv", "after", 0)
	ahead := capture(t, s.Store)
	before, err := os.Stat(s.path)
	if err != nil {
		t.Fatal(err)
	}
	mustRestore(t, s.Store, records)
	after, err := os.Stat(s.path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Fatal("the fast path replaced series.db")
	}
	sameRecords(t, capture(t, s.Store), ahead)
}

func TestSnapshotFallsBackWhenTheLocalChainDiffers(t *testing.T) {
	s := journal(t)
	records := capture(t, s.Store)

	other := mustNew(t)
	other.create("inv", "INV-{year}-{n:04}", yearly, gapless, 0)
	other.create("rec", "R{n}", 0, gaps, 0)
	other.mustIssue("rec", "something else", 0)
	other.index = s.index + 100
	other.mustIssue("inv", "x", 0) // ahead of the snapshot, but not holding it
	mustRestore(t, other.Store, records)
	sameRecords(t, capture(t, other.Store), records)
	mustVerifyClean(t, other.Store, "rec")
}

func TestSnapshotAbortAndCorruptLeaveTheFile(t *testing.T) {
	s := journal(t)
	records := capture(t, s.Store)
	dst := journal(t)
	dst.mustIssue("rec", "only here", 0)
	want := capture(t, dst.Store)
	dst.index = 0 // the snapshot is ahead: a rebuild starts
	records[0].(*raftv1.SeriesJournalRecord).AppliedIndex = dst.Applied() + 1

	r := dst.Restore()
	if err := r.Journal(records[0].(*raftv1.SeriesJournalRecord)); err != nil {
		t.Fatal(err)
	}
	if err := r.Definition(records[1].(*raftv1.SeriesDefinition)); err != nil {
		t.Fatal(err)
	}
	r.Abort()
	if err := r.Finish(); err == nil {
		t.Fatal("Finish after Abort succeeded")
	}
	sameRecords(t, capture(t, dst.Store), want)
	if _, err := os.Stat(restorePath(dst.path)); !os.IsNotExist(err) {
		t.Fatalf("the restore file is left: %v", err)
	}

	for name, corrupt := range map[string]func([]proto.Message) []proto.Message{
		"entry missing": func(m []proto.Message) []proto.Message { return append(append([]proto.Message{}, m[:3]...), m[4:]...) },
		"entry changed": func(m []proto.Message) []proto.Message {
			m = append([]proto.Message{}, m...)
			e := proto.Clone(m[3]).(*raftv1.SeriesEntry)
			e.Number = 99
			m[3] = e
			return m
		},
		"series missing": func(m []proto.Message) []proto.Message { return m[:len(m)-2] },
		"head changed": func(m []proto.Message) []proto.Message {
			m = append([]proto.Message{}, m...)
			d := proto.Clone(m[1]).(*raftv1.SeriesDefinition)
			d.LastNumber++
			m[1] = d
			return m
		},
	} {
		err := restore(dst.Store, corrupt(records))
		wantErr(t, err, ErrCorrupt)
		sameRecords(t, capture(t, dst.Store), want)
		t.Logf("%s: %v", name, err)
	}
}

func TestOpenRemovesAnInterruptedRestore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "series.db")
	if err := os.WriteFile(restorePath(path), []byte("half a file"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustOpen(t, path)
	if _, err := os.Stat(restorePath(path)); !os.IsNotExist(err) {
		t.Fatalf("the restore file is left: %v", err)
	}
}

func TestSnapshotFallbackCopiesTheSeriesItKept(t *testing.T) {
	s := journal(t)
	records := capture(t, s.Store)
	// A copy of the journal, ahead of the snapshot, that lost its last series: the first two
	// are kept until the third is found missing, then copied into the rebuilt file.
	path := filepath.Join(t.TempDir(), "series.db")
	h, err := s.acquire()
	if err != nil {
		t.Fatal(err)
	}
	err = h.db.View(func(tx *bbolt.Tx) error { return tx.CopyFile(path, 0o600) })
	s.release(h)
	if err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		if err := putApplied(tx, s.index+10); err != nil {
			return err
		}
		return tx.Bucket(bucketSeries).DeleteBucket(seriesKey("shop", "credit"))
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, path)
	before, _ := os.Stat(path)
	mustRestore(t, c.Store, records)
	after, _ := os.Stat(path)
	if os.SameFile(before, after) {
		t.Fatal("the restore kept a file that lacks a series")
	}
	sameRecords(t, capture(t, c.Store), records)
}
