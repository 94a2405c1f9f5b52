package flake

import (
	"fmt"
	"math"
)

// CrockfordAlphabet is Crockford's base 32: no I, L, O or U, in ASCII order
// so fixed-width strings sort as the numbers they encode. The opaque IDs'
// public form (package opaque) writes its symbols with it too.
const CrockfordAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// CrockfordWidth is the number of symbols of every EncodeCrockford string:
// 13 × 5 = 65 bits hold any ID (and any uint64).
const CrockfordWidth = 13

// maxCrockfordInput bounds what DecodeCrockford reads: the 13 symbols with
// a hyphen after each.
const maxCrockfordInput = 2 * CrockfordWidth

// EncodeCrockford writes id as 13 Crockford base-32 symbols, upper case,
// zero-padded, no hyphens, no check symbol. IDs are never negative; a
// negative id is written as its two's complement (above 2^63−1), which
// DecodeCrockford refuses.
func EncodeCrockford(id int64) string {
	var b [CrockfordWidth]byte
	v := uint64(id)
	for i := CrockfordWidth - 1; i >= 0; i-- {
		b[i] = CrockfordAlphabet[v&31]
		v >>= 5
	}
	return string(b[:])
}

// DecodeCrockford reads 13 Crockford base-32 symbols, at most 2^63−1, as
// Crockford asks decoders to: any case, I and L read as 1, O as 0, hyphens
// ignored (up to 26 characters in all). Anything else, U included, is
// ErrBadEncoding.
func DecodeCrockford(s string) (int64, error) {
	if len(s) > maxCrockfordInput {
		return 0, fmt.Errorf("%w: a Crockford ID is %d symbols (hyphens allowed), got %d characters",
			ErrBadEncoding, CrockfordWidth, len(s))
	}
	var v uint64
	n := 0
	for i := range len(s) {
		c := s[i]
		if c == '-' {
			continue
		}
		d := crockfordValues[c]
		if d < 0 {
			return 0, fmt.Errorf("%w: character %q at %d of %q is not a Crockford base-32 symbol", ErrBadEncoding, c, i, s)
		}
		if n == CrockfordWidth {
			return 0, fmt.Errorf("%w: %q has more than %d symbols", ErrBadEncoding, s, CrockfordWidth)
		}
		if v > math.MaxInt64>>5 {
			return 0, fmt.Errorf("%w: %q is above 2^63-1", ErrBadEncoding, s)
		}
		v = v<<5 | uint64(d)
		n++
	}
	if n != CrockfordWidth {
		return 0, fmt.Errorf("%w: a Crockford ID is %d symbols, %q has %d", ErrBadEncoding, CrockfordWidth, s, n)
	}
	return int64(v), nil
}

// CrockfordValue returns the value of the symbol c as DecodeCrockford reads
// it (either case, I and L as 1, O as 0), and false for any other byte, the
// hyphen and U among them.
func CrockfordValue(c byte) (value byte, ok bool) {
	v := crockfordValues[c]
	return byte(v), v >= 0
}

// crockfordValues maps each byte to its symbol value, or −1 for a byte
// Crockford does not decode (U among them): both cases of the alphabet, and
// I and L as 1, O as 0.
var crockfordValues = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for v, c := range []byte(CrockfordAlphabet) {
		t[c] = int8(v)
		t[c|0x20] = int8(v) // lower case; digits map onto themselves
	}
	t['I'], t['i'], t['L'], t['l'] = 1, 1, 1, 1
	t['O'], t['o'] = 0, 0
	return t
}()
