package opaque

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// ff1Rounds is the number of Feistel rounds FF1 fixes.
const ff1Rounds = 10

// feistel is FF1 prepared for one length and one tweak (SP 800-38G Rev. 1, algorithms 7 and
// 8): the numeral string is split into halves A (u numerals) and B (v numerals) held as their
// values, and everything in a round's PRF input that does not change from round to round is
// computed once. Since each half's value fits in 64 bits (maxLen), NUM(B) takes b ≤ 8 bytes
// and the round function reads d ≤ 12 bytes, so every round costs exactly one AES block.
type feistel struct {
	block      cipher.Block
	radix      uint64
	u, v       int
	powU, powV uint64 // radix^u and radix^v: the moduli of the even and odd rounds
	b          int    // bytes of NUM(B) in Q
	d          int    // bytes of the PRF's output read as the round value y
	// base is the CBC-MAC chaining value after P and all of Q but its last block, XORed with
	// the fixed bytes of that last block: a round XORs in its number and NUM(B), and one AES
	// encryption of the result is R.
	base [16]byte
}

// prepare checks a length and a tweak against FF1's bounds and computes what every round of
// every numeral string of that length under that tweak shares.
func (f *FF1) prepare(n int, tweak []byte) (*feistel, error) {
	if n < f.minLen || n > f.maxLen {
		return nil, fmt.Errorf("%w: %d numerals of radix %d, where FF1 here takes %d to %d",
			ErrLength, n, f.radix, f.minLen, f.maxLen)
	}
	if len(tweak) > MaxTweakLen {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTweakLength, len(tweak), MaxTweakLen)
	}
	u := n / 2
	v := n - u
	net := &feistel{block: f.block, radix: f.radix, u: u, v: v, powU: power(f.radix, u), powV: power(f.radix, v)}
	// b = ⌈⌈v·log2(radix)⌉ / 8⌉, where ⌈v·log2(radix)⌉ is the bit length of radix^v − 1.
	net.b = (bits.Len64(net.powV-1) + 7) / 8
	net.d = 4*((net.b+3)/4) + 4

	// P = [1]¹ [2]¹ [1]¹ [radix]³ [10]¹ [u mod 256]¹ [n]⁴ [t]⁴, the first block of the MAC.
	var chain [16]byte
	chain[0], chain[1], chain[2] = 1, 2, 1
	chain[3], chain[4], chain[5] = byte(f.radix>>16), byte(f.radix>>8), byte(f.radix)
	chain[6] = 10
	chain[7] = byte(u)
	binary.BigEndian.PutUint32(chain[8:], uint32(n))
	binary.BigEndian.PutUint32(chain[12:], uint32(len(tweak)))
	f.block.Encrypt(chain[:], chain[:])

	// Q = T [0]^((−t−b−1) mod 16) [i]¹ [NUM(B)]^b, with i and NUM(B) left zero here. Its
	// length is a multiple of 16, and its last block holds i and NUM(B) since b + 1 ≤ 16.
	pad := (16 - (len(tweak)+net.b+1)%16) % 16
	q := make([]byte, len(tweak)+pad+1+net.b)
	copy(q, tweak)
	last := len(q) - 16
	for off := 0; off < last; off += 16 {
		xorBlock(&chain, q[off:off+16])
		f.block.Encrypt(chain[:], chain[:])
	}
	xorBlock(&chain, q[last:])
	net.base = chain
	return net, nil
}

// xorBlock XORs the 16 bytes of block into dst.
func xorBlock(dst *[16]byte, block []byte) {
	for i := range dst {
		dst[i] ^= block[i]
	}
}

// power returns r^n; the callers keep it within 64 bits (maxLen).
func power(r uint64, n int) uint64 {
	p := uint64(1)
	for range n {
		p *= r
	}
	return p
}

// modulus is radix^m of round i: m is u in the even rounds and v in the odd ones.
func (net *feistel) modulus(i int) uint64 {
	if i%2 == 0 {
		return net.powU
	}
	return net.powV
}

// round is the value y of round i, already reduced modulo mod: R = PRF(P ‖ Q) with num as
// NUM(B), and y = NUM(S) for S the first d bytes of R. buf is the caller's 16-byte scratch
// block, reused across rounds so that an encryption allocates it once.
func (net *feistel) round(buf []byte, i int, num, mod uint64) uint64 {
	block := (*[16]byte)(buf)
	*block = net.base
	block[15-net.b] ^= byte(i)
	// num < 2^(8b), so XORing it into the last 8 bytes touches only NUM(B)'s b bytes.
	binary.BigEndian.PutUint64(block[8:], binary.BigEndian.Uint64(block[8:])^num)
	net.block.Encrypt(buf, buf)
	// y = NUM(R[0:d]) is 64 or 96 bits; y mod mod is taken as hi·2^64 + lo with hi < mod.
	var hi, lo uint64
	if net.d == 12 {
		hi = uint64(binary.BigEndian.Uint32(buf[:4])) % mod
		lo = binary.BigEndian.Uint64(buf[4:12])
	} else {
		lo = binary.BigEndian.Uint64(buf[:8])
	}
	_, y := bits.Div64(hi, lo, mod)
	return y
}

// encrypt runs the ten rounds forward over A's value a and B's value b (algorithm 7, step 6).
func (net *feistel) encrypt(a, b uint64) (uint64, uint64) {
	buf := make([]byte, 16)
	for i := range ff1Rounds {
		mod := net.modulus(i)
		y := net.round(buf, i, b, mod)
		// c = (a + y) mod radix^m without overflow: a and y are both below mod.
		c := a + y
		if a >= mod-y {
			c = a - (mod - y)
		}
		a, b = b, c
	}
	return a, b
}

// decrypt runs the ten rounds backward (algorithm 8, step 6).
func (net *feistel) decrypt(a, b uint64) (uint64, uint64) {
	buf := make([]byte, 16)
	for i := ff1Rounds - 1; i >= 0; i-- {
		mod := net.modulus(i)
		y := net.round(buf, i, a, mod)
		// c = (b − y) mod radix^m: b and y are both below mod.
		c := b - y
		if b < y {
			c = b + (mod - y)
		}
		a, b = c, a
	}
	return a, b
}

// split checks every numeral of x against the radix and returns the values of its halves.
func (net *feistel) split(x []uint16) (a, b uint64, err error) {
	for i, numeral := range x {
		if uint64(numeral) >= net.radix {
			return 0, 0, fmt.Errorf("%w: numeral %d at %d, radix %d", ErrNumeral, numeral, i, net.radix)
		}
		if i < net.u {
			a = a*net.radix + uint64(numeral)
		} else {
			b = b*net.radix + uint64(numeral)
		}
	}
	return a, b, nil
}

// join writes the halves' values back as u + v numerals.
func (net *feistel) join(a, b uint64) []uint16 {
	x := make([]uint16, net.u+net.v)
	for i := len(x) - 1; i >= net.u; i-- {
		x[i] = uint16(b % net.radix)
		b /= net.radix
	}
	for i := net.u - 1; i >= 0; i-- {
		x[i] = uint16(a % net.radix)
		a /= net.radix
	}
	return x
}
