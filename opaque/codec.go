package opaque

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/idnode/idnode/flake"
)

// formRadix is the radix of the public form: Crockford's base 32 (flake.CrockfordAlphabet),
// five bits a symbol. Its symbols are digits and upper-case letters without I, L, O and U, so
// a form survives being read aloud, typed in either case and put in a URL unescaped.
const formRadix = 32

// IdentityLen is the length of an identity's public form: 13 symbols hold 65 bits, the fewest
// whole symbols that hold every value of an int64 counter (63 bits). FF1 permutes all 2^65
// strings of 13 symbols, so three in four of them decrypt above the counter's limit and can
// never be issued: Decode refuses them.
const IdentityLen = 13

// Codec writes the values of one counter, from first to last, as public forms of a fixed length
// under one key and tweak, and reads them back. The form is FF1 over the 32^Len strings of Len
// Crockford symbols, so it is a permutation: two values never share a form. It is safe for
// concurrent use.
type Codec struct {
	net         *feistel
	first, last uint64
	length      int
}

// NewIdentityCodec returns the codec of an identity counter, whose values are 1 to 2^63 − 1,
// for the collection named by collection (the counter's key, as the state machine folds it, so
// that every spelling of a name gives one permutation) under key.
func NewIdentityCodec(key []byte, collection string) (*Codec, error) {
	return NewCodec(key, []byte(collection), 1, math.MaxInt64)
}

// NewCodec returns the codec of a counter whose values are first to last (0 ≤ first ≤ last),
// under key (16, 24 or 32 bytes), varied by tweak: the same value gives unrelated forms under
// two tweaks. The form is the fewest symbols that hold last, and at least FF1's minimum of 4.
func NewCodec(key, tweak []byte, first, last int64) (*Codec, error) {
	if first < 0 || last < first {
		return nil, fmt.Errorf("%w: a counter from %d to %d", ErrDomain, first, last)
	}
	f, err := NewFF1(key, formRadix)
	if err != nil {
		return nil, err
	}
	length := max(f.MinLen(), (bits.Len64(uint64(last))+4)/5)
	net, err := f.prepare(length, tweak)
	if err != nil {
		return nil, err
	}
	return &Codec{net: net, first: uint64(first), last: uint64(last), length: length}, nil
}

// Len is the number of symbols of every public form of c.
func (c *Codec) Len() int { return c.length }

// Encode returns the public form of value: Len upper-case Crockford symbols.
func (c *Codec) Encode(value int64) (string, error) {
	if value < 0 || uint64(value) < c.first || uint64(value) > c.last {
		return "", fmt.Errorf("%w: %d is not from %d to %d", ErrDomain, value, c.first, c.last)
	}
	return c.symbols(c.net.encrypt(uint64(value)/c.net.powV, uint64(value)%c.net.powV)), nil
}

// symbols writes the values of FF1's halves as the form's u and v symbols.
func (c *Codec) symbols(a, b uint64) string {
	form := make([]byte, c.length)
	for i := c.length - 1; i >= 0; i-- {
		if i >= c.net.u {
			form[i] = flake.CrockfordAlphabet[b%formRadix]
			b /= formRadix
		} else {
			form[i] = flake.CrockfordAlphabet[a%formRadix]
			a /= formRadix
		}
	}
	return string(form)
}

// Decode returns the counter value whose public form is form, read in either case and with
// I and L as 1, O as 0. Text of another length or with another character is ErrForm, the
// hyphen included: Crockford lets a decoder skip hyphens, but a form has a fixed length, and a
// database's separator may itself be a hyphen. A form that decrypts outside the counter's
// range was made under another key or tweak, or by no one, and is ErrNotThisDatabase.
func (c *Codec) Decode(form string) (int64, error) {
	if len(form) != c.length {
		return 0, fmt.Errorf("%w: %d characters, an opaque ID here has %d", ErrForm, len(form), c.length)
	}
	var a, b uint64
	for i := range len(form) {
		symbol, ok := flake.CrockfordValue(form[i])
		if !ok {
			return 0, fmt.Errorf("%w: %q at %d is not a Crockford base-32 symbol", ErrForm, form[i], i)
		}
		if i < c.net.u {
			a = a*formRadix + uint64(symbol)
		} else {
			b = b*formRadix + uint64(symbol)
		}
	}
	a, b = c.net.decrypt(a, b)
	// value = a·32^v + b, which for 13 symbols can pass 64 bits: then it is above any counter.
	hi, lo := bits.Mul64(a, c.net.powV)
	value, carry := bits.Add64(lo, b, 0)
	if hi != 0 || carry != 0 || value < c.first || value > c.last {
		return 0, fmt.Errorf("%w: %q", ErrNotThisDatabase, form)
	}
	return int64(value), nil
}
