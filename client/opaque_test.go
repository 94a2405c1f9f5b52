package client

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/opaque"
)

// opaqueFormCase is one case of test/conformance/opaque-forms.json, which every client's tests
// read, so that the four checks of the form cannot drift apart.
type opaqueFormCase struct {
	ID         string `json:"id"`
	Collection string `json:"collection"`
	Separator  string `json:"separator"`
	Normalised string `json:"normalised"`
	Why        string `json:"why"`
}

// opaqueFormCases are the valid and invalid cases of one kind of form.
type opaqueFormCases struct{ Valid, Invalid []opaqueFormCase }

// opaqueForms is test/conformance/opaque-forms.json: the forms of collections' IDs, and
// under numeric those of numeric IDs.
type opaqueForms struct {
	opaqueFormCases
	Numeric opaqueFormCases
}

func loadOpaqueForms(t testing.TB) opaqueForms {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "test", "conformance", "opaque-forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var forms opaqueForms
	if err := json.Unmarshal(raw, &forms); err != nil {
		t.Fatal(err)
	}
	for kind, c := range map[string]opaqueFormCases{"collection": forms.opaqueFormCases, "numeric": forms.Numeric} {
		if len(c.Valid) == 0 || len(c.Invalid) == 0 {
			t.Fatalf("opaque-forms.json has %d valid and %d invalid %s cases", len(c.Valid), len(c.Invalid), kind)
		}
	}
	return forms
}

func (c opaqueFormCase) separator(t testing.TB) rune {
	sep := c.Separator
	if sep == "" {
		sep = "/"
	}
	r, size := utf8.DecodeRuneInString(sep)
	if size != len(sep) {
		t.Fatalf("case %q: separator %q is not one character", c.ID, sep)
	}
	return r
}

func TestParseOpaqueIDSharedCases(t *testing.T) {
	forms := loadOpaqueForms(t)
	for _, c := range forms.Valid {
		got, err := ParseOpaqueID(c.ID, c.Collection, c.separator(t))
		if err != nil || got != c.Normalised {
			t.Errorf("ParseOpaqueID(%q, %q) = %q, %v; want %q (%s)", c.ID, c.Collection, got, err, c.Normalised, c.Why)
		}
	}
	for _, c := range forms.Invalid {
		got, err := ParseOpaqueID(c.ID, c.Collection, c.separator(t))
		if !errors.Is(err, ErrNotOpaqueForm) {
			t.Errorf("ParseOpaqueID(%q, %q) = %q, %v; want ErrNotOpaqueForm (%s)", c.ID, c.Collection, got, err, c.Why)
		}
	}
}

func TestParseOpaqueNumericIDSharedCases(t *testing.T) {
	forms := loadOpaqueForms(t)
	for _, c := range forms.Numeric.Valid {
		got, err := ParseOpaqueNumericID(c.ID)
		if err != nil || got != c.Normalised {
			t.Errorf("ParseOpaqueNumericID(%q) = %q, %v; want %q (%s)", c.ID, got, err, c.Normalised, c.Why)
		}
	}
	for _, c := range forms.Numeric.Invalid {
		got, err := ParseOpaqueNumericID(c.ID)
		if !errors.Is(err, ErrNotOpaqueForm) {
			t.Errorf("ParseOpaqueNumericID(%q) = %q, %v; want ErrNotOpaqueForm (%s)", c.ID, got, err, c.Why)
		}
	}
}

// TestParseOpaqueNumericIDTakesWhatTheCodecWrites checks the numeric check against a codec
// made as a node makes an opaque-numeric database's (every int64, tweaked by "#numeric").
func TestParseOpaqueNumericIDTakesWhatTheCodecWrites(t *testing.T) {
	codec, err := opaque.NewCodec(make([]byte, 32), []byte("#numeric"), 0, 1<<63-1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{0, 1, 1 << 40, 1<<63 - 1} {
		form, err := codec.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ParseOpaqueNumericID(strings.ToLower(form)); err != nil || got != form {
			t.Errorf("ParseOpaqueNumericID(lower(%q)) = %q, %v", form, got, err)
		}
	}
}

// TestParseOpaqueIDTakesWhatTheCodecWrites checks the key-less check against the forms package
// opaque writes, so the check and the node cannot disagree on the alphabet or the length.
func TestParseOpaqueIDTakesWhatTheCodecWrites(t *testing.T) {
	codec, err := opaque.NewIdentityCodec(make([]byte, 32), "orders")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int64{1, 2, 1000, 1<<40 + 7, 1<<63 - 1} {
		form, err := codec.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		id := "orders/" + form
		if got, err := ParseOpaqueID(strings.ToLower(id), "orders", '/'); err != nil || got != id {
			t.Errorf("ParseOpaqueID(lower(%q)) = %q, %v", id, got, err)
		}
	}
}

// FuzzParseOpaqueID checks that what the check accepts is a fixed point of it, keeps the
// ID's length and prefix, and ends in 13 canonical symbols.
func FuzzParseOpaqueID(f *testing.F) {
	forms := loadOpaqueForms(f)
	for _, c := range append(forms.Valid, forms.Invalid...) {
		f.Add(c.ID, c.Collection)
	}
	f.Fuzz(func(t *testing.T, id, collection string) {
		got, err := ParseOpaqueID(id, collection, '/')
		if err != nil {
			if !errors.Is(err, ErrNotOpaqueForm) {
				t.Fatalf("error %v does not wrap ErrNotOpaqueForm", err)
			}
			return
		}
		if len(got) != len(id) || got[:len(collection)+1] != id[:len(collection)+1] {
			t.Fatalf("ParseOpaqueID(%q) = %q: the prefix or the length changed", id, got)
		}
		for _, s := range []byte(got[len(got)-opaque.IdentityLen:]) {
			if !strings.ContainsRune(flake.CrockfordAlphabet, rune(s)) {
				t.Fatalf("ParseOpaqueID(%q) = %q: %q is not canonical", id, got, s)
			}
		}
		if again, err := ParseOpaqueID(got, collection, '/'); err != nil || again != got {
			t.Fatalf("ParseOpaqueID(%q) = %q, %v: not a fixed point", got, again, err)
		}
	})
}
