package opaque

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"math/bits"
)

// The radixes FF1 is defined for (SP 800-38G Rev. 1, section 5.2).
const (
	MinRadix = 2
	MaxRadix = 1 << 16
)

// minDomain is the fewest numeral strings FF1 may permute: radix^minlen ≥ 1,000,000 (SP 800-38G
// Rev. 1, section 5.2), because a smaller domain can be tabulated by someone who sees enough
// pairs of plaintext and ciphertext.
const minDomain = 1_000_000

// MaxTweakLen bounds a tweak, in bytes; FF1 leaves maxTlen to the implementation. It is above
// any collection name the ID grammar accepts (2,025 bytes), and it bounds the AES blocks spent
// on preparing a tweak.
const MaxTweakLen = 4096

// FF1 is NIST SP 800-38G FF1 over AES for one key and one radix: a keyed permutation of the
// numeral strings of each length from MinLen to MaxLen, varied by a tweak. It is safe for
// concurrent use: it holds only the AES key schedule.
type FF1 struct {
	block  cipher.Block
	radix  uint64
	minLen int
	maxLen int
}

// NewFF1 returns FF1 under key, an AES-128, -192 or -256 key, for numerals of radix.
func NewFF1(key []byte, radix int) (*FF1, error) {
	if radix < MinRadix || radix > MaxRadix {
		return nil, fmt.Errorf("%w: %d", ErrRadix, radix)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("%w: got %d bytes", ErrKeySize, len(key))
	}
	r := uint64(radix)
	return &FF1{block: block, radix: r, minLen: minLen(r), maxLen: maxLen(r)}, nil
}

// minLen is the shortest numeral string FF1 accepts for radix r: at least 2, and long enough
// that r^n ≥ minDomain. The loop runs at most 20 times (radix 2) and cannot overflow, since
// it multiplies only values below minDomain by r ≤ 2^16.
func minLen(r uint64) int {
	n, domain := 2, r*r
	for domain < minDomain {
		domain *= r
		n++
	}
	return n
}

// maxLen is the longest numeral string this implementation accepts for radix r: twice the
// most numerals whose value fits in 64 bits. SP 800-38G allows up to 2^32 numerals; this bound
// keeps both halves of the Feistel network in machine words (no big integers, no allocation
// per round), makes NUM(B) at most 8 bytes so that every round is exactly one AES block, and
// still allows 24 base-32 symbols (120 bits), more than any counter needs.
func maxLen(r uint64) int {
	v, power := 1, r
	for {
		hi, lo := bits.Mul64(power, r)
		if hi != 0 {
			return 2 * v
		}
		power = lo
		v++
	}
}

// MinLen is the shortest numeral string f accepts: radix^MinLen ≥ 1,000,000.
func (f *FF1) MinLen() int { return f.minLen }

// MaxLen is the longest numeral string f accepts.
func (f *FF1) MaxLen() int { return f.maxLen }

// Encrypt returns the FF1 encryption of the numerals x under tweak (empty or nil for none).
func (f *FF1) Encrypt(x []uint16, tweak []byte) ([]uint16, error) {
	return f.apply(x, tweak, (*feistel).encrypt)
}

// Decrypt returns the numerals that Encrypt turned into x under tweak.
func (f *FF1) Decrypt(x []uint16, tweak []byte) ([]uint16, error) {
	return f.apply(x, tweak, (*feistel).decrypt)
}

// apply checks x and tweak, then runs one direction of the Feistel network over x's halves.
func (f *FF1) apply(x []uint16, tweak []byte, direction func(*feistel, uint64, uint64) (uint64, uint64)) ([]uint16, error) {
	net, err := f.prepare(len(x), tweak)
	if err != nil {
		return nil, err
	}
	a, b, err := net.split(x)
	if err != nil {
		return nil, err
	}
	a, b = direction(net, a, b)
	return net.join(a, b), nil
}
