package fsm

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// journalWithSeries is a journaled FSM with a yearly series of the default database (issues
// across the year, a void) and one of database shop.
func journalWithSeries(t *testing.T) *journaled {
	t.Helper()
	j := newJournaled(t)
	createInvoices(t, j)
	mustIssued(t, j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
		Issues: []*raftv1.SeriesIssue{issue("a"), issue("b"), issue("c")}, ProposedAtMs: year2026}), 3)
	mustIssued(t, j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
		Issues: []*raftv1.SeriesIssue{issue("d")}, ProposedAtMs: year2026 + 3_600_000}), 1)
	if out, ok := j.apply(t, SeriesVoidCommand, &raftv1.SeriesVoid{Series: "inv", Period: "2026", Number: 2, Reason: "twice",
		RequestId: "v", ProposedAtMs: year2026 + 3_600_000}).(*raftv1.SeriesEntry); !ok {
		t.Fatalf("void answered %v", out)
	}
	if out := j.apply(t, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"}); out != nil {
		t.Fatalf("CreateDatabase(shop) answered %v", out)
	}
	if _, ok := j.apply(t, CreateSeriesCommand, &raftv1.CreateSeries{Database: "shop", Name: "CN", Format: "CN{n}"}).(*raftv1.SeriesDefinition); !ok {
		t.Fatal("CreateSeries(shop/CN) failed")
	}
	mustIssued(t, j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
		Issues: []*raftv1.SeriesIssue{{Database: "shop", Series: "cn", RequestId: "c1"}}}), 1)
	return j
}

func mustReadBackup(t *testing.T, write func(*bytes.Buffer) error) *Backup {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBackup(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// restoreSeries applies the backup's RestoreSeries commands and sums their answers.
func restoreSeries(t *testing.T, j *journaled, b *Backup) series.RestoreResult {
	t.Helper()
	var sum series.RestoreResult
	for _, cmd := range b.RestoreSeriesCommands() {
		res, ok := j.apply(t, RestoreSeriesCommand, cmd).(series.RestoreResult)
		if !ok {
			t.Fatalf("RestoreSeries(%s) answered %v", cmd.GetDefinition().GetName(), j.apply(t, RestoreSeriesCommand, cmd))
		}
		sum.Appended += res.Appended
		sum.Held += res.Held
	}
	return sum
}

// sameJournal fails unless the stores hold the same series, head and entries, and the copy
// verifies.
func sameJournal(t *testing.T, got, want *series.Store, database, name string) {
	t.Helper()
	wantDef, err := want.Definition(database, name)
	if err != nil {
		t.Fatal(err)
	}
	gotDef, err := got.Definition(database, name)
	if err != nil {
		t.Fatalf("%s/%s after the restore: %v", database, name, err)
	}
	if !proto.Equal(gotDef, wantDef) {
		t.Fatalf("head of %s/%s:\n got %v\nwant %v", database, name, gotDef, wantDef)
	}
	var wantEntries []*raftv1.SeriesEntry
	if err := want.Entries(database, name, 1, wantDef.GetEntries(), func(e *raftv1.SeriesEntry) error {
		wantEntries = append(wantEntries, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	i := 0
	if err := got.Entries(database, name, 1, gotDef.GetEntries(), func(e *raftv1.SeriesEntry) error {
		if !proto.Equal(e, wantEntries[i]) {
			t.Fatalf("entry %d of %s/%s:\n got %v\nwant %v", i+1, database, name, e, wantEntries[i])
		}
		i++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if r, err := got.Verify(database, name); err != nil || r.Break != nil {
		t.Fatalf("verify %s/%s after the restore: %+v, %v", database, name, r, err)
	}
}

// A backup carries the series journals; its restore, through RestoreSeries commands, gives a
// fresh cluster the same journals, and a second restore of it changes nothing.
func TestBackupRoundTripOfSeries(t *testing.T) {
	src := journalWithSeries(t)
	b := mustReadBackup(t, func(w *bytes.Buffer) error { return src.WriteBackup(w, IssueRates{}) })
	if len(b.Series) != 2 || len(b.Series[0].Entries) != 5 || len(b.Series[1].Entries) != 1 {
		t.Fatalf("the backup holds %d series; want default/INV with 5 entries, shop/CN with 1", len(b.Series))
	}
	dst := newJournaled(t)
	if got := restoreSeries(t, dst, b); got.Appended != 6 || got.Held != 0 {
		t.Fatalf("the restore answered %+v, want 6 appended", got)
	}
	sameJournal(t, dst.flushed(t), src.flushed(t), "", "inv")
	sameJournal(t, dst.flushed(t), src.flushed(t), "shop", "cn")
	if _, err := dst.st.db("shop"); err != nil {
		t.Errorf("the restore left database shop out of the state: %v", err)
	}
	if got := restoreSeries(t, dst, b); got.Appended != 0 || got.Held != 6 {
		t.Fatalf("the second restore answered %+v, want everything held", got)
	}
	sameJournal(t, dst.flushed(t), src.flushed(t), "", "inv")
	sameJournal(t, dst.flushed(t), src.flushed(t), "shop", "cn")
	// The series go on where the backup's left off.
	next := mustIssued(t, dst.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
		Issues: []*raftv1.SeriesIssue{issue("e")}, ProposedAtMs: year2026}), 1)[0]
	if next.GetId() != "INV-2027-0002" {
		t.Errorf("the next issue after the restore is %s, want INV-2027-0002", next.GetId())
	}
}

// A backup of one database carries only its series.
func TestDatabaseBackupHoldsItsSeriesOnly(t *testing.T) {
	src := journalWithSeries(t)
	b := mustReadBackup(t, func(w *bytes.Buffer) error { return src.WriteDatabaseBackup(w, "SHOP", IssueRates{}) })
	if len(b.Series) != 1 || b.Series[0].Definition.GetName() != "CN" || len(b.Series[0].Entries) != 1 {
		t.Fatalf("the backup of shop holds %v", b.Series)
	}
	dst := newJournaled(t)
	restoreSeries(t, dst, b)
	sameJournal(t, dst.flushed(t), src.flushed(t), "shop", "cn")
}

// A RestoreSeries applied again at its index (a replay) changes nothing; one that diverges
// from the journal is an answer, not a halt.
func TestRestoreSeriesReplayAndRefusal(t *testing.T) {
	src := journalWithSeries(t)
	b := mustReadBackup(t, func(w *bytes.Buffer) error { return src.WriteBackup(w, IssueRates{}) })
	dst := newJournaled(t)
	l := dst.entry(t, RestoreSeriesCommand, b.RestoreSeriesCommands()[0])
	if _, ok := dst.Apply(l).(series.RestoreResult); !ok {
		t.Fatal("the restore failed")
	}
	if out, _ := dst.Apply(l).(error); !errors.Is(out, series.ErrReplayed) {
		t.Fatalf("the replay answered %v, want ErrReplayed", out)
	}
	sameJournal(t, dst.flushed(t), src.flushed(t), "", "inv")

	other := newJournaled(t)
	if _, ok := other.apply(t, CreateSeriesCommand, &raftv1.CreateSeries{Name: "INV", Format: "I-{n}"}).(*raftv1.SeriesDefinition); !ok {
		t.Fatal("CreateSeries failed")
	}
	if out, _ := other.apply(t, RestoreSeriesCommand, b.RestoreSeriesCommands()[0]).(error); !errors.Is(out, series.ErrSeriesDiverged) {
		t.Fatalf("a restore over another INV answered %v, want ErrSeriesDiverged", out)
	}
	if other.Halted() {
		t.Error("a refused restore halted the FSM")
	}
}

// A long journal goes through Raft in bounded commands.
func TestRestoreSeriesCommandsAreBounded(t *testing.T) {
	def := &raftv1.SeriesDefinition{Name: "INV", Entries: 1201}
	b := &Backup{Series: []SeriesBackup{{Definition: def}, {Definition: &raftv1.SeriesDefinition{Name: "EMPTY"}}}}
	for i := range 1201 {
		b.Series[0].Entries = append(b.Series[0].Entries, &raftv1.SeriesEntry{Seq: uint64(i + 1), Reason: string(bytes.Repeat([]byte("x"), 1500))})
	}
	cmds := b.RestoreSeriesCommands()
	total := 0
	for _, c := range cmds[:len(cmds)-1] {
		if n := len(c.GetEntries()); n == 0 || n > series.MaxRestoreEntries || proto.Size(c) > series.MaxRestoreBytes {
			t.Fatalf("a command of %d entries, %d bytes", n, proto.Size(c))
		}
		total += len(c.GetEntries())
	}
	if total != 1201 || len(cmds) < 3 {
		t.Fatalf("%d commands carry %d entries, want 1201 in at least 3", len(cmds), total)
	}
	if last := cmds[len(cmds)-1]; last.GetDefinition().GetName() != "EMPTY" || len(last.GetEntries()) != 0 {
		t.Fatalf("the empty series is %v, want one command without entries", last)
	}
}
