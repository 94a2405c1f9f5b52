package opaque

import "errors"

// Every refusal of this package wraps one of these, so a caller can branch with errors.Is and
// the node can map a bad public form to INVALID_ARGUMENT.
var (
	// ErrKeySize is returned for a key that is not an AES key: 16, 24 or 32 bytes.
	ErrKeySize = errors.New("opaque: an AES key is 16, 24 or 32 bytes")
	// ErrRadix is returned for a radix outside FF1's 2 to 65536.
	ErrRadix = errors.New("opaque: FF1's radix is from 2 to 65536")
	// ErrLength is returned for a numeral string shorter than FF1's minimum for its radix (too
	// small a domain to encrypt safely) or longer than this implementation's maximum.
	ErrLength = errors.New("opaque: numeral string length outside FF1's bounds for its radix")
	// ErrNumeral is returned for a numeral that is not below the radix.
	ErrNumeral = errors.New("opaque: numeral not below the radix")
	// ErrTweakLength is returned for a tweak longer than MaxTweakLen.
	ErrTweakLength = errors.New("opaque: tweak too long")
	// ErrDomain is returned by NewCodec for a counter range it cannot map, and by Encode for a
	// value outside the codec's counter range.
	ErrDomain = errors.New("opaque: value outside the counter's range")
	// ErrForm is returned by Decode for text that is not a public form at all: the wrong length,
	// or a character outside Crockford's base 32.
	ErrForm = errors.New("opaque: not an opaque ID: wrong length or alphabet")
	// ErrNotThisDatabase is returned by Decode for a well-formed public form that decrypts to a
	// value outside the counter's range: it was not made with this key and collection. A form
	// made under another key can also decrypt to a value inside the range; nothing but a lookup
	// tells those apart.
	ErrNotThisDatabase = errors.New("opaque: not an ID of this database and collection")
)
