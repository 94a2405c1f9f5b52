package series

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

const (
	yearly  = raftv1.SeriesPeriod_SERIES_PERIOD_YEAR
	gapless = raftv1.SeriesPolicy_SERIES_POLICY_GAPLESS
	gaps    = raftv1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED
	issued  = raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED
	voided  = raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED
)

// at is Unix ms of a UTC time.
func at(year int, month time.Month, day, hour, minute, sec int) int64 {
	return time.Date(year, month, day, hour, minute, sec, 0, time.UTC).UnixMilli()
}

// testStore is a store with its raft index, so each command gets the next one.
type testStore struct {
	*Store
	t     testing.TB
	index uint64
}

func mustOpen(t testing.TB, path string) *testStore {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testStore{Store: s, t: t, index: s.Applied()}
	t.Cleanup(func() { _ = s.Close() })
	return ts
}

func mustNew(t testing.TB) *testStore {
	return mustOpen(t, filepath.Join(t.TempDir(), "series.db"))
}

// mustNewUnsynced is a store whose commits skip fsync, for the fuzz targets: they check the
// rules, not durability, and an fsync per input made an input take seconds on a busy disk,
// which the fuzzer's end-of-run deadline reports as a failure.
func mustNewUnsynced(t testing.TB) *testStore {
	t.Helper()
	path := filepath.Join(t.TempDir(), "series.db")
	db, err := openDB(path, true)
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{path: path, cur: &handle{db: db}}
	t.Cleanup(func() { _ = s.Close() })
	return &testStore{Store: s, t: t}
}

// inTx runs fn in one write transaction and commits it.
func (s *testStore) inTx(fn func(tx *Tx)) {
	s.t.Helper()
	tx, err := s.Begin()
	if err != nil {
		s.t.Fatal(err)
	}
	fn(tx)
	if err := tx.Commit(); err != nil {
		s.t.Fatal(err)
	}
}

func (s *testStore) next() uint64 { s.index++; return s.index }

func (s *testStore) create(name, format string, period raftv1.SeriesPeriod, policy raftv1.SeriesPolicy, atMs int64) *raftv1.SeriesDefinition {
	s.t.Helper()
	var def *raftv1.SeriesDefinition
	var err error
	s.inTx(func(tx *Tx) {
		def, err = tx.Create(s.next(), &raftv1.CreateSeries{Name: name, Format: format, Period: period, Policy: policy,
			ProposedAtMs: atMs, CreatedBy: "tester", RequestId: "create-" + name})
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return def
}

// issue issues one number in its own transaction.
func (s *testStore) issue(series, requestID string, atMs int64) (*raftv1.SeriesEntry, error) {
	var r []IssueResult
	s.inTx(func(tx *Tx) {
		r = tx.Issue(s.next(), &raftv1.SeriesIssueBatch{ProposedAtMs: atMs, Issues: []*raftv1.SeriesIssue{issueOf(series, requestID)}})
	})
	return r[0].Entry, r[0].Err
}

func (s *testStore) mustIssue(series, requestID string, atMs int64) *raftv1.SeriesEntry {
	s.t.Helper()
	e, err := s.issue(series, requestID, atMs)
	if err != nil {
		s.t.Fatal(err)
	}
	return e
}

func issueOf(series, requestID string) *raftv1.SeriesIssue {
	return &raftv1.SeriesIssue{Series: series, RequestId: requestID, DocumentHash: []byte("doc-" + requestID),
		Fields: []*raftv1.SeriesField{{Key: "amount", Value: "100.00"}, {Key: "customer", Value: "c-1"}}, IssuedBy: "key-1"}
}

func (s *testStore) void(v *raftv1.SeriesVoid) (*raftv1.SeriesEntry, error) {
	var e *raftv1.SeriesEntry
	var err error
	s.inTx(func(tx *Tx) { e, err = tx.Void(s.next(), v) })
	return e, err
}

func voidOf(series, period string, number int64, requestID string, atMs int64) *raftv1.SeriesVoid {
	return &raftv1.SeriesVoid{Series: series, Period: period, Number: number, Reason: "typo", RequestId: requestID,
		VoidedBy: "key-2", ProposedAtMs: atMs}
}

func wantErr(t testing.TB, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
}

func mustDefinition(t testing.TB, s *Store, name string) *raftv1.SeriesDefinition {
	t.Helper()
	def, err := s.Definition("", name)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

func mustVerifyClean(t testing.TB, s *Store, name string) Report {
	t.Helper()
	r, err := s.Verify("", name)
	if err != nil {
		t.Fatal(err)
	}
	if r.Break != nil {
		t.Fatalf("verify %q: break at %d: %s", name, r.Break.Seq, r.Break.Reason)
	}
	return r
}
