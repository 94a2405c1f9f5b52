package opaque

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// maxErrorLength bounds an error message: a hostile string is never echoed whole.
const maxErrorLength = 200

// Decoding hostile text either refuses it with ErrForm or ErrNotThisDatabase, in a short
// message, or returns a value of the counter whose form is the text as Crockford reads it.
func FuzzDecode(f *testing.F) {
	c := identityCodec(f, testKey, "orders")
	form, err := c.Encode(12345)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		form, strings.ToLower(form), "", "0000000000000", "ZZZZZZZZZZZZZ", "IIIIIIIIIIIII", "UUUUUUUUUUUUU",
		form[:12], form + "-", "orders/" + form, strings.Repeat("9", 4096), "\xff\xfe" + form[2:],
	} {
		f.Add(s)
	}
	canonical := strings.NewReplacer("I", "1", "L", "1", "O", "0")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := c.Decode(s)
		if err != nil {
			if !errors.Is(err, ErrForm) && !errors.Is(err, ErrNotThisDatabase) {
				t.Fatalf("Decode(%q): %v, neither ErrForm nor ErrNotThisDatabase", s, err)
			}
			if len(err.Error()) > maxErrorLength {
				t.Fatalf("Decode(%.40q): a %d-byte message", s, len(err.Error()))
			}
			return
		}
		if v < 1 {
			t.Fatalf("Decode(%q) = %d, not an identity", s, v)
		}
		again, err := c.Encode(v)
		if err != nil {
			t.Fatalf("Decode(%q) = %d, which Encode refuses: %v", s, v, err)
		}
		if want := canonical.Replace(strings.ToUpper(s)); again != want {
			t.Fatalf("Decode(%q) = %d, whose form is %q, not %q", s, v, again, want)
		}
	})
}

// Any radix, numerals and tweak either are refused with a sentinel error or encrypt to numerals
// of the same length and radix that decrypt back.
func FuzzFF1RoundTrip(f *testing.F) {
	f.Add(uint32(10), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte("9876543210"))
	f.Add(uint32(36), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, []byte{})
	f.Add(uint32(2), make([]byte, 126), []byte("t"))
	f.Add(uint32(1<<16), []byte{255, 255}, []byte(nil))
	f.Add(uint32(32), []byte{31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31}, []byte("orders"))
	isSentinel := func(err error) bool {
		for _, sentinel := range []error{ErrRadix, ErrLength, ErrNumeral, ErrTweakLength} {
			if errors.Is(err, sentinel) {
				return true
			}
		}
		return false
	}
	f.Fuzz(func(t *testing.T, radix uint32, numerals, tweak []byte) {
		if radix > 1<<20 {
			radix %= 1 << 20 // still past MaxRadix sometimes, without wasting inputs on it
		}
		ff1, err := NewFF1(testKey, int(radix))
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("NewFF1(radix %d): %v", radix, err)
			}
			return
		}
		x := make([]uint16, len(numerals))
		for i, n := range numerals {
			x[i] = uint16(n)
		}
		y, err := ff1.Encrypt(x, tweak)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("Encrypt: %v", err)
			}
			return
		}
		if len(y) != len(x) || slices.ContainsFunc(y, func(n uint16) bool { return uint32(n) >= radix }) {
			t.Fatalf("radix %d: %v encrypts to %v", radix, x, y)
		}
		back, err := ff1.Decrypt(y, tweak)
		if err != nil || !slices.Equal(back, x) {
			t.Fatalf("radix %d: %v encrypts to %v, which decrypts to %v, %v", radix, x, y, back, err)
		}
	})
}
