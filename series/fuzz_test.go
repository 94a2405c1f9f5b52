package series

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func FuzzFormat(f *testing.F) {
	for _, s := range []string{"INV-{year}-{n:06}", "{n}", "M{year}{month}{n:019}", "{n:00}", "{n:020}", "{", "}", "a|b{n}", "{n}{n}", "{year}{year}{n}", "\x00{n}"} {
		f.Add(s, uint8(1), int64(42), at(2026, 3, 1, 0, 0, 0))
	}
	f.Fuzz(func(t *testing.T, s string, p uint8, n, ms int64) {
		period := raftv1.SeriesPeriod(p % 3)
		parsed, err := parseFormat(s, period)
		if err != nil {
			if !errors.Is(err, ErrBadFormat) {
				t.Fatalf("%q: error %v is not ErrBadFormat", s, err)
			}
			return
		}
		if parsed.String() != s {
			t.Fatalf("%q parses back as %q", s, parsed.String())
		}
		switch {
		case period == yearly && !strings.Contains(s, "{year}"),
			period == raftv1.SeriesPeriod_SERIES_PERIOD_MONTH && !(strings.Contains(s, "{year}") && strings.Contains(s, "{month}")):
			t.Fatalf("%q accepted for period %v", s, period)
		}
		ms = min(max(ms, 0), maxTimeMs)
		n = max(n, 1)
		id := parsed.render(ms, n)
		if strings.ContainsAny(id, `{}|\`) || len(id) > maxFormatLength+2*maxWidth+len("9999") {
			t.Fatalf("%q renders %d at %d as %q", s, n, ms, id)
		}
		if !strings.Contains(id, fmt.Sprint(n)) {
			t.Fatalf("%q renders %d as %q, without the number", s, n, id)
		}
		if n > 1 && parsed.render(ms, n-1) == id {
			t.Fatalf("%q renders %d and %d alike: %q", s, n-1, n, id)
		}
	})
}

// FuzzCheckIssue checks that the store applies exactly what CheckIssue accepts: an accepted
// issue makes one entry and keeps the journal verifiable, a refused one changes nothing.
func FuzzCheckIssue(f *testing.F) {
	f.Add("req-1", []byte("hash"), "amount", "10.00", "customer", "ACME", "key-1", at(2026, 1, 1, 0, 0, 0))
	f.Add("", []byte{}, "b", "x", "a", "y", "", int64(-1))
	f.Add("r", []byte{0}, "k", "\u200b", "k", "v", "\x7f", int64(maxTimeMs+1))
	s := mustNewUnsynced(f)
	s.create("inv", "I-{year}-{n}", yearly, gapless, 0)
	f.Fuzz(func(t *testing.T, requestID string, docHash []byte, k1, v1, k2, v2, issuedBy string, ms int64) {
		s.t = t
		is := &raftv1.SeriesIssue{Series: "inv", RequestId: requestID, DocumentHash: docHash, IssuedBy: issuedBy,
			Fields: []*raftv1.SeriesField{{Key: k1, Value: v1}, {Key: k2, Value: v2}}}
		b := &raftv1.SeriesIssueBatch{ProposedAtMs: ms, Issues: []*raftv1.SeriesIssue{is}}
		accepted := CheckIssue(is) == nil && CheckIssueTime(b) == nil
		before := mustDefinition(t, s.Store, "inv")
		var r []IssueResult
		s.inTx(func(tx *Tx) { r = tx.Issue(s.next(), b) })
		after := mustDefinition(t, s.Store, "inv")
		switch {
		case !accepted && r[0].Err == nil:
			t.Fatalf("the store applied an issue CheckIssue refuses: %v", is)
		case !accepted && after.GetEntries() != before.GetEntries():
			t.Fatal("a refused issue made an entry")
		case accepted && r[0].Err != nil && !errors.Is(r[0].Err, ErrRequestIDReused):
			t.Fatalf("the store refused an issue CheckIssue accepts: %v", r[0].Err)
		}
		if after.GetEntries()%1024 == 0 { // a walk of the whole journal: not every input
			mustVerifyClean(t, s.Store, "inv")
		}
	})
}
