package flake

import (
	"fmt"
	"math"
)

// base62Alphabet is in ASCII order, so fixed-width strings sort as the
// numbers they encode.
const base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Base62Width is the length of every EncodeBase62 string: 62^11 > 2^64 >
// 62^10, so 11 digits hold any ID (and any uint64).
const Base62Width = 11

// EncodeBase62 writes id as 11 base-62 digits (0-9A-Za-z), zero-padded, so
// that lexical order is numeric order. IDs are never negative; a negative id
// is written as its two's complement (above 2^63−1), which DecodeBase62
// refuses.
func EncodeBase62(id int64) string {
	var b [Base62Width]byte
	v := uint64(id)
	for i := Base62Width - 1; i >= 0; i-- {
		b[i] = base62Alphabet[v%62]
		v /= 62
	}
	return string(b[:])
}

// DecodeBase62 reads an EncodeBase62 string: exactly 11 characters of
// 0-9A-Za-z, at most 2^63−1. Anything else is ErrBadEncoding.
func DecodeBase62(s string) (int64, error) {
	if len(s) != Base62Width {
		return 0, fmt.Errorf("%w: a base62 ID is %d characters, got %d", ErrBadEncoding, Base62Width, len(s))
	}
	var v uint64
	for i := range len(s) {
		d := base62Digit(s[i])
		if d < 0 {
			return 0, fmt.Errorf("%w: character %q at %d of %q is not 0-9, A-Z or a-z", ErrBadEncoding, s[i], i, s)
		}
		if v > (math.MaxInt64-uint64(d))/62 {
			return 0, fmt.Errorf("%w: %q is above 2^63-1", ErrBadEncoding, s)
		}
		v = v*62 + uint64(d)
	}
	return int64(v), nil
}

// base62Digit is c's value, or −1 for a character outside the alphabet.
func base62Digit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'Z':
		return int(c-'A') + 10
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 36
	}
	return -1
}
