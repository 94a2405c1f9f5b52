package series

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func TestIssueAcrossTheYearBoundary(t *testing.T) {
	s := mustNew(t)
	s.create("INV", "INV-{year}-{n:04}", yearly, gapless, at(2026, 12, 31, 23, 0, 0))
	for i, want := range []string{"INV-2026-0001", "INV-2026-0002"} {
		if e := s.mustIssue("inv", "r"+want, at(2026, 12, 31, 23, 59, 59)); e.GetId() != want || e.GetSeq() != uint64(i+1) {
			t.Fatalf("issued %s (seq %d), want %s", e.GetId(), e.GetSeq(), want)
		}
	}
	e := s.mustIssue("INV", "new-year", at(2027, 1, 1, 0, 0, 0))
	if e.GetId() != "INV-2027-0001" || e.GetPeriod() != "2027" || e.GetNumber() != 1 {
		t.Fatalf("first issue of 2027: %s period %q number %d", e.GetId(), e.GetPeriod(), e.GetNumber())
	}
	// A proposer whose clock is behind cannot take the series back into 2026.
	behind := s.mustIssue("INV", "behind", at(2026, 12, 31, 23, 59, 0))
	if behind.GetId() != "INV-2027-0002" || behind.GetTimeMs() != at(2027, 1, 1, 0, 0, 0) {
		t.Fatalf("issue from a clock behind: %s at %d", behind.GetId(), behind.GetTimeMs())
	}
	def := mustDefinition(t, s.Store, "inv")
	if def.GetName() != "INV" || def.GetCurrentPeriod() != "2027" || def.GetLastNumber() != 2 || def.GetIssued() != 4 || def.GetEntries() != 4 {
		t.Fatalf("head: %v", def)
	}
	if r := mustVerifyClean(t, s.Store, "INV"); r.Entries != 4 || r.Issued != 4 {
		t.Fatalf("report %+v", r)
	}
}

func TestMonthlyAndUnperiodedNumbering(t *testing.T) {
	s := mustNew(t)
	s.create("m", "M{year}{month}-{n}", raftv1.SeriesPeriod_SERIES_PERIOD_MONTH, gapless, 0)
	s.create("plain", "P{n:08}", raftv1.SeriesPeriod_SERIES_PERIOD_NONE, gapless, 0)
	for _, c := range []struct {
		series string
		atMs   int64
		want   string
	}{
		{"m", at(2026, 3, 31, 12, 0, 0), "M202603-1"},
		{"m", at(2026, 3, 31, 13, 0, 0), "M202603-2"},
		{"m", at(2026, 4, 1, 0, 0, 0), "M202604-1"},
		{"plain", at(2026, 12, 31, 0, 0, 0), "P00000001"},
		{"plain", at(2027, 1, 1, 0, 0, 0), "P00000002"},
	} {
		if e := s.mustIssue(c.series, c.want, c.atMs); e.GetId() != c.want {
			t.Fatalf("issued %s, want %s", e.GetId(), c.want)
		}
	}
	mustVerifyClean(t, s.Store, "m")
	mustVerifyClean(t, s.Store, "plain")
}

func TestIssueRetryByRequestID(t *testing.T) {
	s := mustNew(t)
	s.create("inv", "I{n}", 0, gapless, 0)
	first := s.mustIssue("inv", "a", 1000)
	again := s.mustIssue("inv", "a", 2000)
	if !proto.Equal(first, again) {
		t.Fatalf("retry answered %v, want %v", again, first)
	}
	if def := mustDefinition(t, s.Store, "inv"); def.GetEntries() != 1 {
		t.Fatalf("a retry made an entry: %d entries", def.GetEntries())
	}
	other := issueOf("inv", "a")
	other.DocumentHash = []byte("another document")
	var r []IssueResult
	s.inTx(func(tx *Tx) {
		r = tx.Issue(s.next(), &raftv1.SeriesIssueBatch{ProposedAtMs: 3000, Issues: []*raftv1.SeriesIssue{other}})
	})
	wantErr(t, r[0].Err, ErrRequestIDReused)
	_, err := s.void(voidOf("inv", "", 1, "a", 3000))
	wantErr(t, err, ErrRequestIDReused)
	if found, err := s.Find("", "INV", "a"); err != nil || !proto.Equal(found, first) {
		t.Fatalf("Find: %v, %v", found, err)
	}
}

func TestBatchAnswersEachIssue(t *testing.T) {
	s := mustNew(t)
	s.create("inv", "I{n}", 0, gapless, 0)
	noRequest := issueOf("inv", "")
	var r []IssueResult
	s.inTx(func(tx *Tx) {
		r = tx.Issue(s.next(), &raftv1.SeriesIssueBatch{ProposedAtMs: 5, Issues: []*raftv1.SeriesIssue{
			issueOf("inv", "1"), noRequest, issueOf("nope", "2"), issueOf("inv", "3"), issueOf("inv", "1"),
		}})
	})
	wantErr(t, r[1].Err, ErrBadInput)
	wantErr(t, r[2].Err, ErrNoSeries)
	if r[0].Err != nil || r[3].Err != nil || r[4].Err != nil {
		t.Fatalf("good issues failed: %v %v %v", r[0].Err, r[3].Err, r[4].Err)
	}
	if r[0].Entry.GetId() != "I1" || r[3].Entry.GetId() != "I2" || !proto.Equal(r[4].Entry, r[0].Entry) {
		t.Fatalf("issued %s, %s, retry %s", r[0].Entry.GetId(), r[3].Entry.GetId(), r[4].Entry.GetId())
	}
	mustVerifyClean(t, s.Store, "inv")
}

func TestVoidGapless(t *testing.T) {
	s := mustNew(t)
	s.create("inv", "INV-{year}-{n}", yearly, gapless, 0)
	s.mustIssue("inv", "a", at(2026, 5, 1, 0, 0, 0))
	s.mustIssue("inv", "b", at(2026, 5, 1, 0, 0, 0))
	v, err := s.void(voidOf("inv", "2026", 1, "v1", at(2026, 5, 2, 0, 0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if v.GetKind() != voided || v.GetId() != "INV-2026-1" || v.GetSeq() != 3 || v.GetReason() != "typo" {
		t.Fatalf("void entry %v", v)
	}
	retry, err := s.void(voidOf("inv", "2026", 1, "v1", at(2026, 5, 3, 0, 0, 0)))
	if err != nil || !proto.Equal(retry, v) {
		t.Fatalf("retried void: %v, %v", retry, err)
	}
	_, err = s.void(voidOf("inv", "2026", 1, "v2", 0))
	wantErr(t, err, ErrAlreadyVoided)
	_, err = s.void(voidOf("inv", "2026", 3, "v3", 0))
	wantErr(t, err, ErrGapless)
	_, err = s.void(voidOf("inv", "2026", 4, "v4", 0))
	wantErr(t, err, ErrNotIssued)
	_, err = s.void(voidOf("inv", "2025", 2, "v5", 0))
	wantErr(t, err, ErrNotIssued)
	if e := s.mustIssue("inv", "c", 0); e.GetNumber() != 3 {
		t.Fatalf("issued %d after refused voids, want 3", e.GetNumber())
	}
	// A number of a past period may still be voided.
	s.mustIssue("inv", "d", at(2027, 1, 1, 0, 0, 0))
	if v, err := s.void(voidOf("inv", "2026", 2, "v6", 0)); err != nil || v.GetId() != "INV-2026-2" || v.GetTimeMs() != at(2027, 1, 1, 0, 0, 0) {
		t.Fatalf("void of last year's number: %v, %v", v, err)
	}
	if r := mustVerifyClean(t, s.Store, "inv"); r.Issued != 4 || r.Voided != 2 {
		t.Fatalf("report %+v", r)
	}
}

func TestVoidGapsAllowed(t *testing.T) {
	s := mustNew(t)
	s.create("rec", "R{year}-{n}", yearly, gaps, 0)
	s.mustIssue("rec", "a", at(2026, 1, 1, 0, 0, 0))
	skip, err := s.void(voidOf("rec", "2026", 2, "skip", 0))
	if err != nil || skip.GetId() != "R2026-2" {
		t.Fatalf("skipping void: %v, %v", skip, err)
	}
	if e := s.mustIssue("rec", "b", 0); e.GetNumber() != 3 {
		t.Fatalf("issued %d after a skip, want 3", e.GetNumber())
	}
	_, err = s.void(voidOf("rec", "2026", 2, "again", 0))
	wantErr(t, err, ErrAlreadyVoided)
	_, err = s.void(voidOf("rec", "2026", 5, "far", 0))
	wantErr(t, err, ErrNotIssued)
	// The next number of a new period is 1.
	if _, err := s.void(voidOf("rec", "2027", 1, "newyear", at(2027, 2, 1, 0, 0, 0))); err != nil {
		t.Fatal(err)
	}
	if e := s.mustIssue("rec", "c", 0); e.GetId() != "R2027-2" {
		t.Fatalf("issued %s, want R2027-2", e.GetId())
	}
	if r := mustVerifyClean(t, s.Store, "rec"); r.Issued != 3 || r.Voided != 2 {
		t.Fatalf("report %+v", r)
	}
}

func TestReplayChangesNothing(t *testing.T) {
	s := mustNew(t)
	s.create("inv", "I{n}", 0, gapless, 0)
	e := s.mustIssue("inv", "a", 0)
	applied := s.Applied()
	if applied != s.index {
		t.Fatalf("applied %d, want %d", applied, s.index)
	}
	// A failed command moves the applied index too: replayed later, it must not succeed.
	_, err := s.issue("later", "x", 0)
	wantErr(t, err, ErrNoSeries)
	failedAt := s.index
	s.create("later", "L{n}", 0, gapless, 0)
	before := mustDefinition(t, s.Store, "inv")

	var r []IssueResult
	var def *raftv1.SeriesDefinition
	var createErr, voidErr error
	s.inTx(func(tx *Tx) {
		r = tx.Issue(failedAt, &raftv1.SeriesIssueBatch{Issues: []*raftv1.SeriesIssue{issueOf("later", "x"), issueOf("inv", "a"), issueOf("inv", "new")}})
		def, createErr = tx.Create(1, &raftv1.CreateSeries{Name: "inv", Format: "I{n}", RequestId: "create-inv"})
		_, voidErr = tx.Void(2, voidOf("inv", "", 1, "v", 0))
	})
	wantErr(t, r[0].Err, ErrReplayed)
	if !proto.Equal(r[1].Entry, e) {
		t.Fatalf("replayed issue answered %v, want %v", r[1].Entry, e)
	}
	wantErr(t, r[2].Err, ErrReplayed)
	if createErr != nil || def.GetName() != "inv" {
		t.Fatalf("replayed create: %v, %v", def, createErr)
	}
	wantErr(t, voidErr, ErrReplayed)
	if after := mustDefinition(t, s.Store, "inv"); !proto.Equal(after, before) {
		t.Fatalf("a replay changed the series: %v, was %v", after, before)
	}
	if _, err := s.Definition("", "later"); err != nil {
		t.Fatal(err)
	}
	if l := mustDefinition(t, s.Store, "later"); l.GetEntries() != 0 {
		t.Fatalf("a replayed issue made an entry in %q", l.GetName())
	}
	if s.Applied() != s.index {
		t.Fatalf("a replay moved the applied index to %d", s.Applied())
	}
}

func TestCreateRules(t *testing.T) {
	s := mustNew(t)
	def := s.create("Inv", "I{n}", 0, gapless, 7)
	if def.GetDatabase() != "default" || def.GetClockMs() != 7 || def.GetRequestId() != "create-Inv" {
		t.Fatalf("definition %v", def)
	}
	var retry *raftv1.SeriesDefinition
	var errs [4]error
	s.inTx(func(tx *Tx) {
		retry, errs[0] = tx.Create(s.next(), &raftv1.CreateSeries{Name: "Inv", Format: "I{n}", RequestId: "create-Inv"})
		_, errs[1] = tx.Create(s.next(), &raftv1.CreateSeries{Name: "INV", Format: "I{n}", RequestId: "other"})
		_, errs[2] = tx.Create(s.next(), &raftv1.CreateSeries{Name: "y", Format: "Y{n}", Period: yearly})
		_, errs[3] = tx.Create(s.next(), &raftv1.CreateSeries{Name: "bad name", Format: "{n}"})
	})
	if errs[0] != nil || !proto.Equal(retry, def) {
		t.Fatalf("retried create: %v, %v", retry, errs[0])
	}
	wantErr(t, errs[1], ErrSeriesExists)
	wantErr(t, errs[2], ErrBadFormat)
	wantErr(t, errs[3], ErrBadInput)

	s.inTx(func(tx *Tx) {
		for i := 1; i < maxSeriesPerDB; i++ {
			if _, err := tx.Create(s.next(), &raftv1.CreateSeries{Database: "big", Name: fmt.Sprintf("s%04d", i), Format: "{n}"}); err != nil {
				t.Fatal(err)
			}
		}
	})
	s.inTx(func(tx *Tx) {
		if _, err := tx.Create(s.next(), &raftv1.CreateSeries{Database: "big", Name: "last", Format: "{n}"}); err != nil {
			t.Fatal(err)
		}
		_, err := tx.Create(s.next(), &raftv1.CreateSeries{Database: "big", Name: "one-more", Format: "{n}"})
		wantErr(t, err, ErrTooManySeries)
		if _, err := tx.Create(s.next(), &raftv1.CreateSeries{Database: "small", Name: "one-more", Format: "{n}"}); err != nil {
			t.Fatal(err)
		}
	})
	list, err := s.List("BIG")
	if err != nil || len(list) != maxSeriesPerDB {
		t.Fatalf("List: %d series, %v", len(list), err)
	}
	for i := 1; i < len(list); i++ {
		if list[i-1].GetName() >= list[i].GetName() {
			t.Fatalf("List is not sorted: %q before %q", list[i-1].GetName(), list[i].GetName())
		}
	}
}

func TestNumberOverflow(t *testing.T) {
	s := mustNew(t)
	s.create("inv", "I{n}", 0, gaps, 0)
	s.mustIssue("inv", "a", 0)
	// The head is the only place that holds the last number: move it to the end of int64.
	tx, err := s.Begin()
	if err != nil {
		t.Fatal(err)
	}
	o, err := tx.series("", "inv")
	if err != nil {
		t.Fatal(err)
	}
	o.def.LastNumber, o.dirty = maxNumber, true
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	_, err = s.issue("inv", "b", 0)
	wantErr(t, err, ErrNumberOverflow)
	_, err = s.void(voidOf("inv", "", maxNumber, "v", 0))
	wantErr(t, err, ErrNotIssued)
}

func TestEntriesWalksOnlyWhatExists(t *testing.T) {
	s := mustNew(t)
	s.create("inv", "I{n}", 0, gapless, 0)
	for _, id := range []string{"a", "b", "c", "d"} {
		s.mustIssue("inv", id, 0)
	}
	var seqs []uint64
	if err := s.Entries("", "inv", 2, 1<<64-1, func(e *raftv1.SeriesEntry) error {
		seqs = append(seqs, e.GetSeq())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 3 || seqs[0] != 2 || seqs[2] != 4 {
		t.Fatalf("entries from 2: %v", seqs)
	}
	err := s.Entries("", "none", 0, 1, func(*raftv1.SeriesEntry) error { return nil })
	wantErr(t, err, ErrNoSeries)
}
