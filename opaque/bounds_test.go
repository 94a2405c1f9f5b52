package opaque

import (
	"errors"
	"testing"
)

var testKey = []byte("0123456789abcdef")

// FF1's bounds from SP 800-38G Rev. 1: radix^minlen ≥ 1,000,000 and minlen ≥ 2, radix from 2 to
// 2^16, and this implementation's maxlen (halves within 64 bits).
func TestFF1Bounds(t *testing.T) {
	for _, c := range []struct{ radix, minLen, maxLen int }{
		{2, 20, 126},    // 2^20 = 1,048,576; 2^63 is the most a half holds
		{10, 6, 38},     // 10^6; 10^19 < 2^64 < 10^20
		{32, 4, 24},     // 32^4 = 1,048,576; 32^12 = 2^60
		{36, 4, 24},     // 36^3 = 46,656 is too few; 36^12 < 2^64 < 36^13
		{1000, 2, 12},   // 1000^2 = 10^6 exactly
		{1 << 16, 2, 6}, // at least 2, whatever the radix; 2^48 fits, 2^64 does not
		{999, 3, 12},    // 999^2 < 10^6
		{65535, 2, 8},   // 65535^4 < 2^64
	} {
		f, err := NewFF1(testKey, c.radix)
		if err != nil {
			t.Fatal(err)
		}
		if f.MinLen() != c.minLen || f.MaxLen() != c.maxLen {
			t.Errorf("radix %d: lengths %d to %d, want %d to %d", c.radix, f.MinLen(), f.MaxLen(), c.minLen, c.maxLen)
		}
	}
}

// Bad keys, radixes, lengths, numerals and tweaks are refused with their sentinel error.
func TestFF1RefusesBadInput(t *testing.T) {
	for _, radix := range []int{-1, 0, 1, 1<<16 + 1} {
		if _, err := NewFF1(testKey, radix); !errors.Is(err, ErrRadix) {
			t.Errorf("radix %d: err = %v, want ErrRadix", radix, err)
		}
	}
	for _, size := range []int{0, 8, 15, 17, 31, 33, 64} {
		if _, err := NewFF1(make([]byte, size), 10); !errors.Is(err, ErrKeySize) {
			t.Errorf("a %d-byte key: err = %v, want ErrKeySize", size, err)
		}
	}
	f, err := NewFF1(testKey, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		x     []uint16
		tweak []byte
		want  error
	}{
		{"empty", nil, nil, ErrLength},
		{"below minlen", make([]uint16, 5), nil, ErrLength},
		{"above maxlen", make([]uint16, 39), nil, ErrLength},
		{"numeral equal to the radix", []uint16{0, 1, 2, 3, 4, 10}, nil, ErrNumeral},
		{"numeral far above the radix", []uint16{65535, 1, 2, 3, 4, 5}, nil, ErrNumeral},
		{"tweak too long", make([]uint16, 6), make([]byte, MaxTweakLen+1), ErrTweakLength},
	} {
		if _, err := f.Encrypt(c.x, c.tweak); !errors.Is(err, c.want) {
			t.Errorf("Encrypt, %s: err = %v, want %v", c.name, err, c.want)
		}
		if _, err := f.Decrypt(c.x, c.tweak); !errors.Is(err, c.want) {
			t.Errorf("Decrypt, %s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// The bounds themselves are accepted.
	for _, x := range [][]uint16{make([]uint16, 6), make([]uint16, 38)} {
		if _, err := f.Encrypt(x, make([]byte, MaxTweakLen)); err != nil {
			t.Errorf("%d numerals, longest tweak: %v", len(x), err)
		}
	}
}
