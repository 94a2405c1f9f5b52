package series

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// halfRestored is a gapless series of five issues (src) and a store (dst) into which a restore
// put back only its first two entries, as one cut short between its chunks leaves it.
func halfRestored(t *testing.T) (src, dst *testStore, def *raftv1.SeriesDefinition, entries []*raftv1.SeriesEntry) {
	t.Helper()
	src, dst = mustNew(t), mustNew(t)
	src.create("INV", "INV-{year}-{n:04}", yearly, gapless, at(2026, 3, 1, 9, 0, 0))
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		src.mustIssue("inv", id, at(2026, 3, 1, 10, i, 0))
	}
	def, entries = backupOf(t, src.Store, "", "inv")
	res, err := dst.restoreChunk(def, entries[:2])
	if err != nil || !res.Created || res.Appended != 2 || !res.Restoring {
		t.Fatalf("first chunk = %+v, %v; want the series created with 2 entries, still restoring", res, err)
	}
	return src, dst, def, entries
}

// refusedRestoring fails unless err refuses a call into the half-restored series, saying which
// series and how many of the backup's entries it holds.
func refusedRestoring(t *testing.T, what string, err error, holds, of int) {
	t.Helper()
	want := fmt.Sprintf("holds %d of the backup's %d entries", holds, of)
	if !errors.Is(err, ErrSeriesRestoring) || !strings.Contains(err.Error(), `"INV"`) || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s into the half-restored series: %v; want ErrSeriesRestoring naming \"INV\" and saying %q", what, err, want)
	}
}

// A series a restore put back in part issues and voids nothing, so it never gives number 3,
// which the backup gave to another document, again; the rest of the restore opens it, and the
// next issue continues after the backup's numbers, as the source's does.
func TestAHalfRestoredSeriesRefusesIssueAndVoidUntilTheRestIsBack(t *testing.T) {
	src, dst, def, entries := halfRestored(t)
	_, err := dst.issue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0))
	refusedRestoring(t, "an issue", err, 2, 5)
	_, err = dst.void(voidOf("inv", "2026", 2, "void-b", at(2026, 3, 2, 9, 0, 0)))
	refusedRestoring(t, "a void", err, 2, 5)
	if got := mustDefinition(t, dst.Store, "inv"); got.GetEntries() != 2 || got.GetRestoringUntil() != 5 {
		t.Fatalf("head after the refusals: %v; want 2 entries, restoring until entry 5", got)
	}

	res, err := dst.restoreChunk(def, entries[2:])
	if err != nil || res.Appended != 3 || res.Restoring {
		t.Fatalf("the rest of the restore = %+v, %v; want 3 appended and the series open", res, err)
	}
	sameSeries(t, dst.Store, src.Store, "", "inv")
	next, want := dst.mustIssue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0)), src.mustIssue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0))
	if next.GetNumber() != 6 || !proto.Equal(next, want) {
		t.Fatalf("the next issue after the whole restore = %v; want number 6, as the source issues it (%v)", next, want)
	}
}

// A restore that starts again from the first chunk keeps the series shut until it reaches the
// backup's last entry, and a series this store held a prefix of is shut while it lacks the rest.
func TestARepeatedRestoreKeepsTheSeriesShutUntilItEnds(t *testing.T) {
	_, dst, def, entries := halfRestored(t)
	if res, err := dst.restoreChunk(def, entries[:3]); err != nil || res.Held != 2 || res.Appended != 1 || !res.Restoring {
		t.Fatalf("the restore again, one chunk further = %+v, %v; want 2 held, 1 appended, still restoring", res, err)
	}
	_, err := dst.issue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0))
	refusedRestoring(t, "an issue", err, 3, 5)
	if res, err := dst.restoreChunk(def, entries[3:]); err != nil || res.Restoring {
		t.Fatalf("the last chunk = %+v, %v; want the series open", res, err)
	}
	if e := dst.mustIssue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0)); e.GetNumber() != 6 {
		t.Fatalf("the issue after the restore took number %d, want 6", e.GetNumber())
	}
}

// On a cluster whose version predates this (shut false), a restore does as older builds do,
// which every member of that cluster may run: the series stays open.
func TestARestoreWithoutShutLeavesTheSeriesOpen(t *testing.T) {
	src, dst := mustNew(t), mustNew(t)
	src.create("INV", "INV-{year}-{n:04}", yearly, gapless, at(2026, 3, 1, 9, 0, 0))
	for i, id := range []string{"a", "b", "c"} {
		src.mustIssue("inv", id, at(2026, 3, 1, 10, i, 0))
	}
	def, entries := backupOf(t, src.Store, "", "inv")
	if res, err := dst.restoreChunkShut(def, entries[:1], false); err != nil || res.Restoring {
		t.Fatalf("first chunk without shut = %+v, %v; want the series open", res, err)
	}
	if _, err := dst.issue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0)); err != nil {
		t.Fatalf("an issue after a restore without shut: %v; want it issued, as older builds do", err)
	}
}

// The shut state is the series' head, so a snapshot carries it and a restart keeps it: a store
// rebuilt from one, then reopened, refuses as the original does, and opens the series when the
// rest of the restore comes.
func TestASnapshotKeepsAHalfRestoredSeriesShut(t *testing.T) {
	src, dst, def, entries := halfRestored(t)
	first := mustNew(t)
	mustRestore(t, first.Store, capture(t, dst.Store))
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	rebuilt := mustOpen(t, first.path)
	if got := mustDefinition(t, rebuilt.Store, "inv"); got.GetRestoringUntil() != 5 {
		t.Fatalf("head rebuilt from the snapshot: %v; want restoring until entry 5", got)
	}
	_, err := rebuilt.issue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0))
	refusedRestoring(t, "an issue after the snapshot", err, 2, 5)
	if res, err := rebuilt.restoreChunk(def, entries[2:]); err != nil || res.Restoring {
		t.Fatalf("the rest of the restore after the snapshot = %+v, %v; want the series open", res, err)
	}
	sameSeries(t, rebuilt.Store, src.Store, "", "inv")
	if e := rebuilt.mustIssue("inv", "new-doc", at(2026, 3, 2, 9, 0, 0)); e.GetNumber() != 6 {
		t.Fatalf("the issue after the restore took number %d, want 6", e.GetNumber())
	}
}
