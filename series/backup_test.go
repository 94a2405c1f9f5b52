package series

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// backupOf is a series of s as a backup carries it: its definition and its entries.
func backupOf(t *testing.T, s *Store, database, name string) (*raftv1.SeriesDefinition, []*raftv1.SeriesEntry) {
	t.Helper()
	def, err := s.Definition(database, name)
	if err != nil {
		t.Fatal(err)
	}
	var entries []*raftv1.SeriesEntry
	if err := s.Entries(database, name, 1, def.GetEntries(), func(e *raftv1.SeriesEntry) error {
		entries = append(entries, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return def, entries
}

// restoreChunk applies one RestoreSeries in its own transaction, as a cluster whose version
// shuts a series restored in part.
func (s *testStore) restoreChunk(def *raftv1.SeriesDefinition, entries []*raftv1.SeriesEntry) (RestoreResult, error) {
	return s.restoreChunkShut(def, entries, true)
}

// restoreChunkShut applies one RestoreSeries in its own transaction, with shut as Restore takes it.
func (s *testStore) restoreChunkShut(def *raftv1.SeriesDefinition, entries []*raftv1.SeriesEntry, shut bool) (RestoreResult, error) {
	var res RestoreResult
	var err error
	s.inTx(func(tx *Tx) {
		res, err = tx.Restore(s.next(), &raftv1.RestoreSeries{Definition: def, Entries: entries}, shut)
	})
	return res, err
}

// restoreAll applies a series' backup in chunks of per entries, and sums the answers.
func (s *testStore) restoreAll(def *raftv1.SeriesDefinition, entries []*raftv1.SeriesEntry, per int) RestoreResult {
	s.t.Helper()
	var sum RestoreResult
	for from := 0; from == 0 || from < len(entries); from += per {
		res, err := s.restoreChunk(def, entries[from:min(from+per, len(entries))])
		if err != nil {
			s.t.Fatalf("restore of %q from entry %d: %v", def.GetName(), from+1, err)
		}
		sum.Created = sum.Created || res.Created
		sum.Appended += res.Appended
		sum.Held += res.Held
	}
	return sum
}

// sameSeries fails unless both stores hold the same series, entry for entry.
func sameSeries(t *testing.T, got, want *Store, database, name string) {
	t.Helper()
	wantDef, wantEntries := backupOf(t, want, database, name)
	gotDef, gotEntries := backupOf(t, got, database, name)
	if !proto.Equal(gotDef, wantDef) {
		t.Fatalf("head of %q:\n got %v\nwant %v", name, gotDef, wantDef)
	}
	if len(gotEntries) != len(wantEntries) {
		t.Fatalf("%q has %d entries, want %d", name, len(gotEntries), len(wantEntries))
	}
	for i := range wantEntries {
		if !proto.Equal(gotEntries[i], wantEntries[i]) {
			t.Fatalf("entry %d of %q:\n got %v\nwant %v", i+1, name, gotEntries[i], wantEntries[i])
		}
	}
	if r, err := got.Verify(database, name); err != nil || r.Break != nil {
		t.Fatalf("verify %q after the restore: %+v, %v", name, r, err)
	}
}

var journalSeries = []struct{ database, name string }{{"", "inv"}, {"", "rec"}, {"shop", "credit"}}

// Into an empty store, a backup's series come back as they were, indexes and head included:
// a retry finds its entry, and the next issue continues the numbering.
func TestRestoreIntoAnEmptyStore(t *testing.T) {
	src, dst := journal(t), mustNew(t)
	for _, ref := range journalSeries {
		def, entries := backupOf(t, src.Store, ref.database, ref.name)
		got := dst.restoreAll(def, entries, 7)
		if !got.Created || got.Appended != len(entries) || got.Held != 0 {
			t.Fatalf("restore of %q answered %+v, want created with %d appended", ref.name, got, len(entries))
		}
		sameSeries(t, dst.Store, src.Store, ref.database, ref.name)
	}
	if e, err := dst.Find("", "inv", "iC"); err != nil || e.GetSeq() != 3 {
		t.Fatalf("Find(iC) after the restore = %v, %v; want entry 3", e, err)
	}
	if _, err := dst.void(voidOf("inv", "2026", 3, "v-again", 0)); !errors.Is(err, ErrAlreadyVoided) {
		t.Fatalf("a second void of a restored void = %v, want ErrAlreadyVoided", err)
	}
	next, want := dst.mustIssue("inv", "after", 0), src.mustIssue("inv", "after", 0)
	if !proto.Equal(next, want) {
		t.Fatalf("the next issue after the restore = %v, want %v (as the source issues it)", next, want)
	}
}

// Into a store that holds a prefix of the series (the same commands, fewer of them), the held
// entries are skipped and the rest appended; restoring again changes nothing.
func TestRestoreIntoAPrefixAndAgain(t *testing.T) {
	src, dst := mustNew(t), mustNew(t)
	for _, s := range []*testStore{src, dst} {
		s.create("INV", "INV-{year}-{n:04}", yearly, gapless, at(2026, 12, 31, 23, 0, 0))
	}
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		src.mustIssue("inv", id, at(2026, 12, 31, 23, 59, 57+i)) // the last two in 2027
		if i < 2 {
			dst.mustIssue("inv", id, at(2026, 12, 31, 23, 59, 57+i))
		}
	}
	def, entries := backupOf(t, src.Store, "", "inv")
	if got := dst.restoreAll(def, entries, 2); got.Created || got.Appended != 3 || got.Held != 2 {
		t.Fatalf("restore over a prefix answered %+v, want 2 held and 3 appended", got)
	}
	sameSeries(t, dst.Store, src.Store, "", "inv")
	if got := dst.restoreAll(def, entries, 500); got.Appended != 0 || got.Held != 5 {
		t.Fatalf("the same restore again answered %+v, want everything held", got)
	}
	sameSeries(t, dst.Store, src.Store, "", "inv")
}

// A series this store holds otherwise refuses the restore, changing nothing: an entry that
// differs at a held seq, a series created differently, a seq past the head + 1.
func TestRestoreOfADivergedSeriesIsRefused(t *testing.T) {
	src, dst := mustNew(t), mustNew(t)
	for _, s := range []*testStore{src, dst} {
		s.create("INV", "INV-{n}", 0, gapless, 0)
		s.mustIssue("inv", "a", 0)
	}
	src.mustIssue("inv", "b", 0)
	src.mustIssue("inv", "c", 0)
	dst.mustIssue("inv", "other", 0)
	def, entries := backupOf(t, src.Store, "", "inv")
	before, beforeEntries := backupOf(t, dst.Store, "", "inv")
	check := func(what string, def *raftv1.SeriesDefinition, entries []*raftv1.SeriesEntry) {
		t.Helper()
		if _, err := dst.restoreChunk(def, entries); !errors.Is(err, ErrSeriesDiverged) {
			t.Fatalf("%s: restore = %v, want ErrSeriesDiverged", what, err)
		}
		after, afterEntries := backupOf(t, dst.Store, "", "inv")
		if !proto.Equal(after, before) || len(afterEntries) != len(beforeEntries) {
			t.Fatalf("%s: the refused restore changed the series: %v", what, after)
		}
	}
	check("a different entry 2", def, entries)
	check("a gap", def, entries[2:])
	otherFormat := proto.Clone(def).(*raftv1.SeriesDefinition)
	otherFormat.Format = "I-{n}"
	check("another format", otherFormat, entries[:1])
}

// A forged entry is refused, changing nothing, whether its hash is not its content's or it
// was rehashed to hold to a chain whose numbering it breaks. A refusal in the middle of a
// chunk does not leave the entries before it, nor the series it would have created.
func TestRestoreOfAForgedEntryIsRefused(t *testing.T) {
	src := mustNew(t)
	src.create("INV", "INV-{n}", 0, gapless, 0)
	for _, id := range []string{"a", "b", "c"} {
		src.mustIssue("inv", id, 0)
	}
	def, entries := backupOf(t, src.Store, "", "inv")
	forge := func(change func(e *raftv1.SeriesEntry), rehash bool) []*raftv1.SeriesEntry {
		out := make([]*raftv1.SeriesEntry, len(entries))
		for i, e := range entries {
			out[i] = proto.Clone(e).(*raftv1.SeriesEntry)
		}
		change(out[2])
		if rehash {
			out[2].Hash = entryHash(out[2])
		}
		return out
	}
	for _, c := range []struct {
		what    string
		entries []*raftv1.SeriesEntry
	}{
		{"an edited field", forge(func(e *raftv1.SeriesEntry) { e.Actor = "mallory" }, false)},
		{"a rehashed entry with another number", forge(func(e *raftv1.SeriesEntry) { e.Number, e.Id = 7, "INV-7" }, true)},
	} {
		dst := mustNew(t)
		if _, err := dst.restoreChunk(def, c.entries); !errors.Is(err, ErrSeriesDiverged) {
			t.Fatalf("%s: restore = %v, want ErrSeriesDiverged", c.what, err)
		}
		if _, err := dst.Definition("", "inv"); !errors.Is(err, ErrNoSeries) {
			t.Fatalf("%s: the refused restore left the series: %v", c.what, err)
		}
		// Held here already, the forged entry is refused too.
		dst.restoreAll(def, entries, 500)
		if _, err := dst.restoreChunk(def, c.entries); !errors.Is(err, ErrSeriesDiverged) {
			t.Fatalf("%s over the held series: restore = %v, want ErrSeriesDiverged", c.what, err)
		}
		sameSeries(t, dst.Store, src.Store, "", "inv")
	}
}

// Each chunk is bounded, and checked as the commands that made its entries were.
func TestCheckRestoreBounds(t *testing.T) {
	src := mustNew(t)
	src.create("INV", "INV-{n}", 0, gapless, 0)
	src.mustIssue("inv", "a", 0)
	def, entries := backupOf(t, src.Store, "", "inv")
	many := make([]*raftv1.SeriesEntry, MaxRestoreEntries+1)
	for i := range many {
		many[i] = entries[0]
	}
	badText := proto.Clone(entries[0]).(*raftv1.SeriesEntry)
	badText.Actor = "a\x00b"
	upper := proto.Clone(def).(*raftv1.SeriesDefinition)
	upper.Database = "Default"
	for what, r := range map[string]*raftv1.RestoreSeries{
		"too many entries":      {Definition: def, Entries: many},
		"a control character":   {Definition: def, Entries: []*raftv1.SeriesEntry{badText}},
		"a database not folded": {Definition: upper},
		"no definition":         {},
	} {
		if err := CheckRestore(r); !errors.Is(err, ErrBadInput) && !errors.Is(err, ErrBadFormat) {
			t.Errorf("%s: CheckRestore = %v, want ErrBadInput", what, err)
		}
	}
}

// FuzzRestore applies a hostile RestoreSeries to a store holding the first entries of a
// series: refused, it changes nothing; accepted, the journal still verifies.
func FuzzRestore(f *testing.F) {
	src := mustNewUnsynced(f)
	src.create("INV", "INV-{n}", 0, gaps, 0)
	for _, id := range []string{"a", "b", "c"} {
		src.mustIssue("inv", id, 0)
	}
	if _, err := src.void(voidOf("inv", "", 2, "v", 0)); err != nil {
		f.Fatal(err)
	}
	def, err := src.Definition("", "inv")
	if err != nil {
		f.Fatal(err)
	}
	var entries []*raftv1.SeriesEntry
	if err := src.Entries("", "inv", 1, 4, func(e *raftv1.SeriesEntry) error { entries = append(entries, e); return nil }); err != nil {
		f.Fatal(err)
	}
	for _, r := range []*raftv1.RestoreSeries{
		{Definition: def, Entries: entries},
		{Definition: def, Entries: entries[2:]},
		{Definition: &raftv1.SeriesDefinition{Database: "default", Name: "CN", Format: "CN{n}"}},
	} {
		seed, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
	}
	dst := mustNewUnsynced(f)
	dst.restoreAll(def, entries[:2], 500)
	f.Fuzz(func(t *testing.T, data []byte) {
		dst.t = t
		var r raftv1.RestoreSeries
		if proto.Unmarshal(data, &r) != nil {
			return
		}
		d := r.GetDefinition()
		before, beforeErr := dst.Definition(d.GetDatabase(), d.GetName())
		_, err := dst.restoreChunk(d, r.GetEntries())
		after, afterErr := dst.Definition(d.GetDatabase(), d.GetName())
		if err != nil {
			if !Refusal(err) {
				t.Fatalf("restore failed: %v", err)
			}
			if !proto.Equal(before, after) || (beforeErr == nil) != (afterErr == nil) {
				t.Fatalf("a refused restore (%v) changed the series: %v, then %v", err, before, after)
			}
			return
		}
		if report, verr := dst.Verify(d.GetDatabase(), d.GetName()); verr != nil || report.Break != nil {
			t.Fatalf("an accepted restore left a journal that does not verify: %+v, %v", report, verr)
		}
	})
}
