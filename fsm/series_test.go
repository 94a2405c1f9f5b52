package fsm

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// journaled is an FSM with a series store, applied with increasing log indexes as raft does.
type journaled struct {
	*FSM
	path  string // of series.db
	index uint64
}

func newJournaled(t testing.TB) *journaled {
	t.Helper()
	return openJournaled(t, filepath.Join(t.TempDir(), "series.db"))
}

// openJournaled is a new FSM on the series store at path.
func openJournaled(t testing.TB, path string) *journaled {
	t.Helper()
	s, err := series.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f := New()
	f.UseSeries(s)
	// The journal trails the log: what it has not committed is lost with the test, as with a
	// crashed node. Closing the store commits nothing.
	t.Cleanup(func() { s.Close() })
	return &journaled{FSM: f, path: path}
}

// flushed is the FSM's store with every entry applied so far committed (FSM.Series).
func (j *journaled) flushed(t testing.TB) *series.Store {
	t.Helper()
	s, err := j.Series()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// entry frames m as the next log entry.
func (j *journaled) entry(t *testing.T, typ CommandType, m proto.Message) *raft.Log {
	t.Helper()
	data, err := Encode(typ, m)
	if err != nil {
		t.Fatal(err)
	}
	j.index++
	return &raft.Log{Index: j.index, Type: raft.LogCommand, Data: data}
}

func (j *journaled) apply(t *testing.T, typ CommandType, m proto.Message) any {
	t.Helper()
	return j.Apply(j.entry(t, typ, m))
}

var year2026 = time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC).UnixMilli()

func createInvoices(t *testing.T, j *journaled) {
	t.Helper()
	def, ok := j.apply(t, CreateSeriesCommand, &raftv1.CreateSeries{Name: "INV", Format: "INV-{year}-{n:04}",
		Period: raftv1.SeriesPeriod_SERIES_PERIOD_YEAR, ProposedAtMs: year2026}).(*raftv1.SeriesDefinition)
	if !ok || def.GetName() != "INV" {
		t.Fatalf("CreateSeries answered %v", def)
	}
}

func issue(requestID string) *raftv1.SeriesIssue {
	return &raftv1.SeriesIssue{Series: "inv", RequestId: requestID, DocumentHash: []byte(requestID), IssuedBy: "test"}
}

func mustIssued(t *testing.T, out any, n int) []*raftv1.SeriesEntry {
	t.Helper()
	res, ok := out.(SeriesIssued)
	if !ok || len(res.Results) != n {
		t.Fatalf("SeriesIssueBatch answered %#v, want %d results", out, n)
	}
	entries := make([]*raftv1.SeriesEntry, n)
	for i, r := range res.Results {
		if r.Err != nil {
			t.Fatalf("issue %d: %v", i, r.Err)
		}
		entries[i] = r.Entry
	}
	return entries
}

// A batch of issues gets consecutive numbers in commit order, in one entry; the journal, not
// the state, holds them, and a snapshot carries them to a replica that had none.
func TestSeriesIssueThroughTheFSM(t *testing.T) {
	j := newJournaled(t)
	createInvoices(t, j)
	got := mustIssued(t, j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
		Issues: []*raftv1.SeriesIssue{issue("a"), issue("b"), issue("c")}, ProposedAtMs: year2026}), 3)
	for i, e := range got {
		if e.GetNumber() != int64(i+1) || e.GetPeriod() != "2026" {
			t.Errorf("issue %d = %s (number %d, period %q), want number %d of 2026", i, e.GetId(), e.GetNumber(), e.GetPeriod(), i+1)
		}
	}
	if got[2].GetId() != "INV-2026-0003" {
		t.Errorf("third ID = %q, want INV-2026-0003", got[2].GetId())
	}

	replica := newJournaled(t)
	if err := replica.Restore(io.NopCloser(bytes.NewReader(snapshotBytes(t, j.FSM)))); err != nil {
		t.Fatal(err)
	}
	r, err := replica.flushed(t).Verify("", "INV")
	if err != nil || r.Break != nil || r.Issued != 3 {
		t.Fatalf("replica's journal after the snapshot: %+v, %v; want 3 issued, no break", r, err)
	}
	if a, b := snapshotBytes(t, j.FSM), snapshotBytes(t, replica.FSM); !bytes.Equal(a, b) {
		t.Errorf("the replica writes a different snapshot (%d bytes, want %d)", len(b), len(a))
	}
}

// An entry applied again at an index the journal holds (raft replays the log after a restart
// from an older snapshot) answers the same and adds nothing.
func TestSeriesReplayAddsNothing(t *testing.T) {
	j := newJournaled(t)
	createInvoices(t, j)
	l := j.entry(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{issue("a")}, ProposedAtMs: year2026})
	first := mustIssued(t, j.Apply(l), 1)[0]
	again := mustIssued(t, j.Apply(l), 1)[0]
	if !proto.Equal(first, again) {
		t.Errorf("replay answered %v, want %v", again, first)
	}
	next := mustIssued(t, j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{issue("b")}, ProposedAtMs: year2026}), 1)[0]
	if next.GetNumber() != 2 {
		t.Errorf("the issue after a replay got number %d, want 2", next.GetNumber())
	}
}

// ApplyBatch gives the answers Apply gives one by one, in one journal transaction.
func TestSeriesApplyBatchMatchesApply(t *testing.T) {
	one, batched := newJournaled(t), newJournaled(t)
	createInvoices(t, one)
	createInvoices(t, batched)
	var logs []*raft.Log
	var want []any
	for _, id := range []string{"a", "b", "a", "c"} {
		m := &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{issue(id)}, ProposedAtMs: year2026}
		want = append(want, one.apply(t, SeriesIssueBatchCommand, m))
		logs = append(logs, batched.entry(t, SeriesIssueBatchCommand, m))
	}
	got := batched.ApplyBatch(logs)
	for i := range want {
		w, g := mustIssued(t, want[i], 1)[0], mustIssued(t, got[i], 1)[0]
		if !proto.Equal(w, g) {
			t.Errorf("entry %d: ApplyBatch answered %v, Apply %v", i, g, w)
		}
	}
	if a, b := snapshotBytes(t, one.FSM), snapshotBytes(t, batched.FSM); !bytes.Equal(a, b) {
		t.Error("ApplyBatch left a different journal than Apply")
	}
}

// A journal that cannot be written halts the FSM: answering from it would skip entries the
// log holds.
func TestSeriesJournalWriteFailureHalts(t *testing.T) {
	j := newJournaled(t)
	createInvoices(t, j)
	var halts []Halt
	j.OnHalt(func(h Halt) { halts = append(halts, h) })
	if err := j.flushed(t).Close(); err != nil {
		t.Fatal(err)
	}
	out := j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{issue("a")}, ProposedAtMs: year2026})
	err, _ := out.(error)
	if !errors.Is(err, ErrHalted) || !errors.Is(err, ErrJournalWrite) {
		t.Fatalf("issue into a closed journal answered %v, want ErrHalted and ErrJournalWrite", out)
	}
	if len(halts) != 1 || !errors.Is(halts[0].Err, ErrJournalWrite) || halts[0].Index != j.index {
		t.Fatalf("halts = %+v, want one at index %d for the journal", halts, j.index)
	}
	if !j.Halted() {
		t.Error("the FSM goes on applying after the journal failed")
	}
}

// Refusals are answers, the same on every replica; they do not halt.
func TestSeriesRefusalsAreAnswers(t *testing.T) {
	j := newJournaled(t)
	createInvoices(t, j)
	if out := j.apply(t, CreateSeriesCommand, &raftv1.CreateSeries{Name: "inv", Format: "X-{n}", ProposedAtMs: year2026}); !errors.Is(out.(error), series.ErrSeriesExists) {
		t.Errorf("second CreateSeries(inv) answered %v, want ErrSeriesExists", out)
	}
	if out := j.apply(t, SeriesVoidCommand, &raftv1.SeriesVoid{Series: "inv", Period: "2026", Number: 1, Reason: "x", RequestId: "v", ProposedAtMs: year2026}); !errors.Is(out.(error), series.ErrGapless) {
		t.Errorf("void of the next number of a gapless series answered %v, want ErrGapless", out)
	}
	if out := j.apply(t, CreateSeriesCommand, &raftv1.CreateSeries{Database: "shop", Name: "inv", Format: "X-{n}"}); !errors.Is(out.(error), ErrDatabaseNotFound) {
		t.Errorf("CreateSeries in an unknown database answered %v, want ErrDatabaseNotFound", out)
	}
	if j.Halted() {
		t.Error("a refusal halted the FSM")
	}
}

// A restart restores the node's own snapshot: its journal already holds it, so the file stays
// and the entries are not even decoded; the journal answers as before.
func TestSeriesRestoreOfItsOwnSnapshotKeepsTheJournal(t *testing.T) {
	j := newJournaled(t)
	createInvoices(t, j)
	mustIssued(t, j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
		Issues: []*raftv1.SeriesIssue{issue("a"), issue("b")}, ProposedAtMs: year2026}), 2)
	snap := snapshotBytes(t, j.FSM)
	mustIssued(t, j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{issue("c")}, ProposedAtMs: year2026}), 1)
	if err := j.Restore(io.NopCloser(bytes.NewReader(snap))); err != nil {
		t.Fatal(err)
	}
	r, err := j.flushed(t).Verify("", "inv")
	if err != nil || r.Break != nil || r.Issued != 3 {
		t.Fatalf("journal after restoring an older snapshot of its own: %+v, %v; want 3 issued (the file kept)", r, err)
	}
}
