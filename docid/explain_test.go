package docid

import (
	"math"
	"testing"
)

func TestExplainID(t *testing.T) {
	for _, c := range []struct {
		id     string
		kind   Kind
		prefix string
		number string
		tag    string
	}{
		{"users/0000000000000000001-A", ServerSide, "users/", "0000000000000000001", "A"},
		{"orders/12-A", HiLo, "orders/", "12", "A"},
		{"orders/NorthServer/12-AB", HiLo, "orders/NorthServer/", "12", "AB"},
		{"users/1", Identity, "users/", "1", ""},
		{"users/ayende", Semantic, "", "", ""},
		{"users/01", Semantic, "", "", ""},
		{"users/1-a", Semantic, "", "", ""},
		{"users/1-RAFT", Semantic, "", "", ""},
		{"users/99999999999999999999", Semantic, "", "", ""},
		{"plain", Semantic, "", "", ""},
		{"0190b6a3-8a6b-7c1e-9b2a-3c4d5e6f7a8b", GUID, "", "", ""},
	} {
		sh, err := ExplainID(c.id, DefaultSeparator)
		if err != nil || sh.Kind != c.kind || sh.Prefix != c.prefix || sh.Number != c.number || sh.NodeTag != c.tag {
			t.Errorf("ExplainID(%q) = %+v, %v; want %v %q %q %q", c.id, sh, err, c.kind, c.prefix, c.number, c.tag)
		}
	}
	sh, _ := ExplainID("0190b6a3-8a6b-7c1e-9b2a-3c4d5e6f7a8b", DefaultSeparator)
	if sh.GUIDVersion != 7 || sh.GUIDTime.Year() != 2024 {
		t.Errorf("a v7 GUID: version %d time %v; want 7 in 2024", sh.GUIDVersion, sh.GUIDTime)
	}
	if _, err := ExplainID("", DefaultSeparator); err == nil {
		t.Error("ExplainID(\"\") succeeded")
	}
}

// Explain reads the text of an ID that was, or could have been, handed out; a string no ID can
// contain (a backslash, a control or invisible format character) is a caller's mistake, not a
// semantic ID, and saying "semantic" would tell them it could be one.
func TestExplainIDRefusesWhatNoIDContains(t *testing.T) {
	for _, id := range []string{`a\b`, "users/\x00", "users/s\u200bam", "\ufeffusers/1", "\xff/1"} {
		if sh, err := ExplainID(id, DefaultSeparator); err == nil {
			t.Errorf("ExplainID(%q) = %+v; want an error", id, sh)
		}
	}
}

func FuzzExplainID(f *testing.F) {
	for _, s := range []string{"users/0000000000000000001-A", "orders/12-A", "users/1", "x", "", "a/-", "a/0-", "\xff/1",
		"0190b6a3-8a6b-7c1e-9b2a-3c4d5e6f7a8b", "a/18446744073709551616-A", "a/9223372036854775808"} {
		f.Add(s, int32(DefaultSeparator))
	}
	f.Add("a→1-A", int32('→'))
	f.Fuzz(func(t *testing.T, id string, sep rune) {
		sh, err := ExplainID(id, sep)
		if err != nil {
			return
		}
		if checkText("id", id, MaxLength) != nil {
			t.Fatalf("ExplainID(%q) = %+v; no ID can contain it", id, sh)
		}
		switch sh.Kind {
		case ServerSide, HiLo:
			if sh.Prefix+sh.Number+"-"+sh.NodeTag != id || ValidateNodeTag(sh.NodeTag) != nil {
				t.Fatalf("ExplainID(%q) = %+v: the parts do not make the ID", id, sh)
			}
		case Identity:
			if sh.Prefix+sh.Number != id || sh.NodeTag != "" {
				t.Fatalf("ExplainID(%q) = %+v: the parts do not make the ID", id, sh)
			}
		}
	})
}

func TestExplainIDReadsTheFormatters(t *testing.T) {
	for _, etag := range []uint64{1, 42, 1e18 - 1, math.MaxUint64} {
		id := ServerSideID("users/", etag, "B")
		if sh, err := ExplainID(id, '/'); err != nil || sh.Kind != ServerSide || sh.NodeTag != "B" {
			t.Errorf("ExplainID(%q) = %+v, %v; want server-side of node B", id, sh, err)
		}
	}
	for _, n := range []int64{1, 17, 1e17} {
		if sh, err := ExplainID(HiLoID("orders/", n, "C"), '/'); err != nil || sh.Kind != HiLo {
			t.Errorf("ExplainID(HiLoID(%d)) = %+v, %v; want hilo", n, sh, err)
		}
		if sh, err := ExplainID(IdentityID("users", '/', n), '/'); err != nil || sh.Kind != Identity {
			t.Errorf("ExplainID(IdentityID(%d)) = %+v, %v; want identity", n, sh, err)
		}
	}
	if sh, _ := ExplainID(IdentityID("users", '/', math.MaxInt64), '/'); sh.Kind != Identity {
		t.Errorf("the largest identity explains as %v", sh.Kind)
	}
}
