package fsm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// The journal trails the log: the entries applied since its last flush are not in series.db
// yet, so a crash loses them there, never in the log. Applying the log again on the file the
// crash left gives every one of them back, with the numbers and the chain answered before.
func TestSeriesJournalTrailsTheLog(t *testing.T) {
	j := newJournaled(t)
	var log []*raft.Log
	apply := func(typ CommandType, m proto.Message) any {
		l := j.entry(t, typ, m)
		log = append(log, l)
		return j.Apply(l)
	}
	apply(CreateSeriesCommand, &raftv1.CreateSeries{Name: "INV", Format: "INV-{year}-{n:04}",
		Period: raftv1.SeriesPeriod_SERIES_PERIOD_YEAR, ProposedAtMs: year2026})
	j.flushed(t)
	var answered []*raftv1.SeriesEntry
	for i := range journalFlushEvery - 2 { // fewer applies than a flush takes
		b := &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{issue(string(rune('a'+i)) + "1"), issue(string(rune('a'+i)) + "2")}, ProposedAtMs: year2026}
		answered = append(answered, mustIssued(t, apply(SeriesIssueBatchCommand, b), 2)...)
	}

	// The crash: what is on disk now, without the write transaction still open.
	data, err := os.ReadFile(j.path)
	if err != nil {
		t.Fatal(err)
	}
	crashed := filepath.Join(t.TempDir(), "series.db")
	if err := os.WriteFile(crashed, data, 0o600); err != nil {
		t.Fatal(err)
	}
	after := openJournaled(t, crashed)
	if r, err := after.flushed(t).Verify("", "inv"); err != nil || r.Issued != 0 {
		t.Fatalf("the file a crash left holds %+v (%v); want the series with no issue: the journal trails the log", r, err)
	}
	for i, l := range log {
		out := after.Apply(l)
		if i == 0 {
			continue // the series, which the file holds
		}
		for k, e := range mustIssued(t, out, 2) {
			if want := answered[2*(i-1)+k]; !proto.Equal(e, want) {
				t.Fatalf("entry %d of index %d applied again: %v, answered %v before the crash", k, l.Index, e, want)
			}
		}
	}
	r, err := after.flushed(t).Verify("", "inv")
	if err != nil || r.Break != nil || r.Issued != uint64(len(answered)) {
		t.Fatalf("after applying the log again: %+v, %v; want %d issued, chain intact", r, err, len(answered))
	}
}
