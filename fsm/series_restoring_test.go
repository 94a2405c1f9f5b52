package fsm

import (
	"bytes"
	"errors"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// firstChunkOfInvoices is the RestoreSeries of default/INV's backup (5 entries) cut to its
// first two entries, as a restore cut short between its chunks leaves it applied.
func firstChunkOfInvoices(t *testing.T) *raftv1.RestoreSeries {
	t.Helper()
	b := mustReadBackup(t, func(w *bytes.Buffer) error { return journalWithSeries(t).WriteBackup(w, IssueRates{}) })
	for _, cmd := range b.RestoreSeriesCommands() {
		if cmd.GetDefinition().GetName() == "INV" {
			return &raftv1.RestoreSeries{Definition: cmd.GetDefinition(), Entries: cmd.GetEntries()[:2]}
		}
	}
	t.Fatal("the backup has no series INV")
	return nil
}

// issueAfterFirstChunk applies the first chunk of INV's restore and then an issue into it.
func issueAfterFirstChunk(t *testing.T, j *journaled) error {
	t.Helper()
	if res, ok := j.apply(t, RestoreSeriesCommand, firstChunkOfInvoices(t)).(series.RestoreResult); !ok || res.Appended != 2 {
		t.Fatalf("the first chunk answered %+v", res)
	}
	out, ok := j.apply(t, SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{
		Issues: []*raftv1.SeriesIssue{issue("new-doc")}, ProposedAtMs: year2026}).(SeriesIssued)
	if !ok || len(out.Results) != 1 {
		t.Fatalf("SeriesIssueBatch answered %#v", out)
	}
	return out.Results[0].Err
}

// Once the cluster version that brought it is finalised, every node shuts a series a restore
// put back in part, and the log counts that version as used, so no downgrade brings back a
// build that would issue into it. Below that version every node still does as older builds do,
// since some may run one: the series stays open.
func TestAHalfRestoredSeriesIsShutFromItsClusterVersionOn(t *testing.T) {
	older := newJournaled(t)
	if out := older.apply(t, SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: restoringVersion - 1}); out != nil {
		t.Fatalf("SetClusterVersion(%d) answered %v", restoringVersion-1, out)
	}
	if err := issueAfterFirstChunk(t, older); err != nil {
		t.Fatalf("an issue after a partial restore at cluster version %d: %v; want it issued, as older builds do", restoringVersion-1, err)
	}

	current := newJournaled(t)
	if out := current.apply(t, SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: restoringVersion}); out != nil {
		t.Fatalf("SetClusterVersion(%d) answered %v", restoringVersion, out)
	}
	if err := issueAfterFirstChunk(t, current); !errors.Is(err, series.ErrSeriesRestoring) {
		t.Fatalf("an issue after a partial restore at cluster version %d: %v; want ErrSeriesRestoring", restoringVersion, err)
	}
	if used := current.ClusterVersion().Used; used != restoringVersion {
		t.Fatalf("cluster version used after shutting a series = %d, want %d", used, restoringVersion)
	}
	err, _ := current.apply(t, SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: restoringVersion - 1}).(error)
	if !errors.Is(err, ErrDowngradeTooLate) {
		t.Fatalf("a downgrade below the version that shut a series answered %v, want ErrDowngradeTooLate", err)
	}
}
