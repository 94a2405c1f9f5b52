package flake

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEncodeKnownValues(t *testing.T) {
	for _, c := range []struct {
		id                int64
		base62, crockford string
	}{
		{0, "00000000000", "0000000000000"},
		{1, "00000000001", "0000000000001"},
		{61, "0000000000z", "000000000001X"},
		{62, "00000000010", "000000000001Y"},
		{math.MaxInt64, "AzL8n0Y58m7", "7ZZZZZZZZZZZZ"},
	} {
		if got := EncodeBase62(c.id); got != c.base62 {
			t.Errorf("EncodeBase62(%d) = %q, want %q", c.id, got, c.base62)
		}
		if got := EncodeCrockford(c.id); got != c.crockford {
			t.Errorf("EncodeCrockford(%d) = %q, want %q", c.id, got, c.crockford)
		}
		if got, err := DecodeBase62(c.base62); err != nil || got != c.id {
			t.Errorf("DecodeBase62(%q) = %d, %v", c.base62, got, err)
		}
		if got, err := DecodeCrockford(c.crockford); err != nil || got != c.id {
			t.Errorf("DecodeCrockford(%q) = %d, %v", c.crockford, got, err)
		}
	}
}

// TestEncodingsSortAsNumbers: fixed width and alphabets in ASCII order make
// lexical order numeric order.
func TestEncodingsSortAsNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	for range 100000 {
		a, b := rng.Int64(), rng.Int64()>>rng.UintN(63)
		for name, enc := range map[string]func(int64) string{"base62": EncodeBase62, "crockford": EncodeCrockford} {
			if (a < b) != (enc(a) < enc(b)) {
				t.Fatalf("%s: %d < %d is %v, %q < %q is not", name, a, b, a < b, enc(a), enc(b))
			}
		}
	}
}

func TestDecodeCrockfordAliases(t *testing.T) {
	want, err := DecodeCrockford("01ABCDEFGHJKM")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"01abcdefghjkm", "O1ABCDEFGHJKM", "oIABCDEFGHJKM", "0lABCDEFGHJKM", "0LabcDEFGHJKM",
		"01AB-CDEF-GHJK-M", "0-1-A-B-C-D-E-F-G-H-J-K-M-", "0--1ABCDEFGHJKM",
	} {
		if got, err := DecodeCrockford(s); err != nil || got != want {
			t.Errorf("DecodeCrockford(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

func TestDecodersRefuse(t *testing.T) {
	for _, s := range []string{
		"", "0000000000", "000000000000", "0000000000-", "0000000000+", "0000000000 ",
		"00000000 00", "AzL8n0Y58m8", "zzzzzzzzzzz", "LygHa16AHYG", "LygHa16AHYF", "\xff0000000000"[:11],
		"0000000000\u00e9"[:11],
	} {
		if got, err := DecodeBase62(s); !errors.Is(err, ErrBadEncoding) {
			t.Errorf("DecodeBase62(%q) = %d, %v; want ErrBadEncoding", s, got, err)
		}
	}
	for _, s := range []string{
		"", "000000000000", "00000000000000", "000000000000U", "000000000000u", "8000000000000",
		"ZZZZZZZZZZZZZ", "000000000000*", "0000 00000000", "-------------", strings.Repeat("-", 1000),
		"0-0-0-0-0-0-0-0-0-0-0-0-0-0", "0-0-0-0-0-0-0-0-0-0-0-0-0--", "000000000000\u00e9",
	} {
		if got, err := DecodeCrockford(s); !errors.Is(err, ErrBadEncoding) {
			t.Errorf("DecodeCrockford(%q) = %d, %v; want ErrBadEncoding", s, got, err)
		}
	}
}

// TestNegativeEncodesAboveEveryID: a negative number is no ID; its encoding
// sorts after every ID's and the decoders refuse it.
func TestNegativeEncodesAboveEveryID(t *testing.T) {
	for _, id := range []int64{-1, math.MinInt64} {
		b, c := EncodeBase62(id), EncodeCrockford(id)
		if b <= EncodeBase62(math.MaxInt64) || c <= EncodeCrockford(math.MaxInt64) {
			t.Errorf("%d encodes as %q, %q: not above 2^63-1", id, b, c)
		}
		if _, err := DecodeBase62(b); !errors.Is(err, ErrBadEncoding) {
			t.Errorf("DecodeBase62(%q) = %v", b, err)
		}
		if _, err := DecodeCrockford(c); !errors.Is(err, ErrBadEncoding) {
			t.Errorf("DecodeCrockford(%q) = %v", c, err)
		}
	}
}

func FuzzDecodeBase62(f *testing.F) {
	for _, s := range []string{"00000000000", "AzL8n0Y58m7", "AzL8n0Y58m8", "zzzzzzzzzzz", "0000000000-", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := DecodeBase62(s)
		if err != nil {
			if !errors.Is(err, ErrBadEncoding) {
				t.Fatalf("DecodeBase62(%q): %v is not ErrBadEncoding", s, err)
			}
			return
		}
		// Only the one fixed-width form decodes: encoding gives it back.
		if id < 0 || EncodeBase62(id) != s {
			t.Fatalf("DecodeBase62(%q) = %d, which encodes as %q", s, id, EncodeBase62(id))
		}
	})
}

func FuzzDecodeCrockford(f *testing.F) {
	for _, s := range []string{"0000000000000", "7ZZZZZZZZZZZZ", "8000000000000", "01ab-cdef-ghjk-m", "oIL0000000000", "U", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := DecodeCrockford(s)
		if err != nil {
			if !errors.Is(err, ErrBadEncoding) {
				t.Fatalf("DecodeCrockford(%q): %v is not ErrBadEncoding", s, err)
			}
			return
		}
		// What decodes is the canonical form up to case, hyphens and the
		// I, L, O aliases; the canonical form decodes to the same ID.
		canonical := strings.NewReplacer("-", "", "I", "1", "L", "1", "O", "0").Replace(strings.ToUpper(s))
		enc := EncodeCrockford(id)
		if id < 0 || enc != canonical {
			t.Fatalf("DecodeCrockford(%q) = %d, which encodes as %q, not %q", s, id, enc, canonical)
		}
		if back, err := DecodeCrockford(enc); err != nil || back != id {
			t.Fatalf("DecodeCrockford(%q) = %d, %v; want %d", enc, back, err, id)
		}
	})
}

func FuzzEncodeRoundTrip(f *testing.F) {
	for _, id := range []int64{0, 1, 61, 62, math.MaxInt64, -1, math.MinInt64} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id int64) {
		b, errB := DecodeBase62(EncodeBase62(id))
		c, errC := DecodeCrockford(EncodeCrockford(id))
		if id < 0 {
			if errB == nil || errC == nil {
				t.Fatalf("negative %d decoded back: %v, %v", id, errB, errC)
			}
			return
		}
		if errB != nil || errC != nil || b != id || c != id {
			t.Fatalf("%d round-trips as %d, %v and %d, %v", id, b, errB, c, errC)
		}
	})
}
