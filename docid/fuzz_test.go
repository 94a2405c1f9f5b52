package docid

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// maxMessageLength bounds any error message: the rule, plus a value of at most 64 bytes that %q
// may escape to a few times its size.
const maxMessageLength = 512

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "users/ayende", "users/", "users|", "Users|", "|", "/", "||", "a|b|", "users/|",
		"users\\1", "users/\x00", "users/\u0085", "users/s\u200bam", "\ufeffusers|", "users/\u202e", "users/ſam", "users/ѕam", "\xff", "utilisateurs/élodie/",
		strings.Repeat("a", MaxLength), strings.Repeat("a", MaxLength+1),
		strings.Repeat("é", 40) + "/", strings.Repeat("p", maxPrefixLength) + "|",
	} {
		f.Add(s, int32(DefaultSeparator))
	}
	f.Add("users-", int32('-'))
	f.Add("users→", int32('→'))
	f.Add("users|", int32('|'))
	f.Add("users ", int32(' '))
	f.Add("users/", int32(-1))

	f.Fuzz(func(t *testing.T, s string, sep rune) {
		req, err := Parse(s, sep)
		if err != nil {
			checkFailure(t, s, req, err)
			return
		}
		checkSuccess(t, s, sep, req)
	})
}

func checkFailure(t *testing.T, s string, req Request, err error) {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Parse(%q) error %v is not a *ValidationError", s, err)
	}
	if req != (Request{}) {
		t.Errorf("Parse(%q) returned %+v with its error", s, req)
	}
	msg := err.Error()
	if ve.Rule == "" || !utf8.ValidString(msg) || len(msg) > maxMessageLength {
		t.Errorf("Parse(%q): bad message %q", s, msg)
	}
}

func checkSuccess(t *testing.T, s string, sep rune, req Request) {
	if req.Raw != s {
		t.Fatalf("Parse(%q).Raw = %q", s, req.Raw)
	}
	if checkSeparator(sep) != nil {
		t.Fatalf("Parse(%q) accepted separator %U", s, sep)
	}
	if s == "" {
		if req.Kind != GUID || req.Prefix != "" {
			t.Fatalf(`Parse("") = %+v`, req)
		}
		return
	}
	if len(s) > MaxLength || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
		return r == '\\' || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}) {
		t.Fatalf("Parse accepted %q", s)
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	switch req.Kind {
	case Identity:
		if last != '|' || req.Prefix != strings.TrimSuffix(s, "|") {
			t.Fatalf("Parse(%q) = %+v", s, req)
		}
		if err := ValidateName("identity name", req.Prefix); err != nil {
			t.Fatalf("Parse(%q) accepted a name ValidateName rejects: %v", s, err)
		}
		// Every ID generated for an accepted request must itself be a valid concrete ID.
		for _, v := range []int64{1, math.MaxInt64, math.MinInt64} {
			if err := ValidateConcrete(IdentityID(req.Prefix, sep, v), sep); err != nil {
				t.Fatalf("identity ID from %q: %v", s, err)
			}
		}
	case ServerSide:
		if last != sep || req.Prefix != s || len(s) == utf8.RuneLen(sep) {
			t.Fatalf("Parse(%q) = %+v", s, req)
		}
		if err := ValidateConcrete(ServerSideID(req.Prefix, math.MaxUint64, "ZZZZ"), sep); err != nil {
			t.Fatalf("server-side ID from %q: %v", s, err)
		}
	case Semantic:
		if last == sep || last == '|' || req.Prefix != "" {
			t.Fatalf("Parse(%q) = %+v", s, req)
		}
		if err := ValidateConcrete(s, sep); err != nil {
			t.Fatalf("Parse(%q) is semantic but not concrete: %v", s, err)
		}
	default:
		t.Fatalf("Parse(%q) = %+v", s, req)
	}
}

// FuzzIdentityBlock walks blocks of any bounds, the ends of int64 included: All ends after
// Last (it used to wrap past the largest int64 and never end), yields ascending values of the
// block that are not skipped, and as many as Len says when Skipped lies inside the block. A
// walk is cut off after maxWalk values, so a wide block is checked by its start.
func FuzzIdentityBlock(f *testing.F) {
	const maxWalk = 4096
	f.Add(int64(1), int64(3), []byte{})
	f.Add(int64(math.MaxInt64-2), int64(math.MaxInt64), []byte{1})
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), []byte{0})
	f.Add(int64(math.MinInt64), int64(math.MinInt64+2), []byte{1, 1})
	f.Add(int64(5), int64(4), []byte{})
	f.Add(int64(0), int64(math.MaxInt64), []byte{2, 3})
	f.Fuzz(func(t *testing.T, first, last int64, gaps []byte) {
		b := IdentityBlock{First: first, Last: last}
		// Skipped from gaps: ascending values after First, inside the block while they fit.
		v := first
		for _, g := range gaps {
			if v > math.MaxInt64-int64(g)-1 || v+int64(g)+1 > last {
				break
			}
			v += int64(g) + 1
			b.Skipped = append(b.Skipped, v)
		}
		skipped := make(map[int64]bool, len(b.Skipped))
		for _, s := range b.Skipped {
			skipped[s] = true
		}
		var got []int64
		for v := range b.All() {
			if v < first || v > last || skipped[v] || len(got) > 0 && v <= got[len(got)-1] {
				t.Fatalf("%+v yielded %d after %v", b, v, got)
			}
			if got = append(got, v); len(got) == maxWalk {
				break
			}
		}
		if last < first {
			if len(got) != 0 {
				t.Fatalf("empty block %+v yielded %v", b, got)
			}
			return
		}
		if len(got) < maxWalk && int64(len(got)) != b.Len() {
			t.Fatalf("%+v yielded %d values, Len %d", b, len(got), b.Len())
		}
	})
}
