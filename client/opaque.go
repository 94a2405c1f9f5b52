package client

import (
	"fmt"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/opaque"
)

// ParseOpaqueID reports whether id is the opaque form of an ID of collection on a cluster
// whose separator is separator, and returns it normalised: collection, separator, then 13
// Crockford base-32 symbols (docs/opaque-ids.md). It needs no key and makes no call: it checks
// the shape only, so an application can route or refuse a string before a database lookup.
// The symbols are read as Crockford asks, in either case with I and L as 1 and O as 0, and
// come back in their canonical upper-case spelling; a hyphen is refused, since the length is
// fixed and a separator may itself be a hyphen. The collection's ASCII letters match in either
// case, as the cluster folds names (other letters must be spelt alike), and the ID's own
// spelling of it is kept. A form of the right shape may still be refused by the cluster:
// three in four of them decode outside any counter, which only the key can tell.
//
// test/conformance/opaque-forms.json holds the cases every client's check agrees on.
func ParseOpaqueID(id, collection string, separator rune) (string, error) {
	if collection == "" {
		return "", fmt.Errorf("%w: no collection given", ErrNotOpaqueForm)
	}
	prefix := collection + string(separator)
	if len(id) < len(prefix) || !equalFoldASCII(id[:len(prefix)], prefix) {
		return "", fmt.Errorf("%w: %q does not start with %q", ErrNotOpaqueForm, id, prefix)
	}
	symbols, err := canonicalSymbols(id[len(prefix):])
	if err != nil {
		return "", fmt.Errorf("%w: %q after %q: %w", ErrNotOpaqueForm, id, prefix, err)
	}
	return id[:len(prefix)] + symbols, nil
}

// ParseOpaqueNumericID reports whether id is the opaque form of a numeric ID, as a database
// whose numeric IDs an admin made opaque answers Generate with numeric set: 13 Crockford
// base-32 symbols and nothing else, since a numeric ID has no collection. It returns the form
// normalised and reads the symbols as ParseOpaqueID does; it needs no key and makes no call,
// so a form of the right shape may still be none the database's key decodes.
//
// test/conformance/opaque-forms.json holds the cases every client's check agrees on.
func ParseOpaqueNumericID(id string) (string, error) {
	form, err := canonicalSymbols(id)
	if err != nil {
		return "", fmt.Errorf("%w: %q as a numeric ID: %w", ErrNotOpaqueForm, id, err)
	}
	return form, nil
}

// canonicalSymbols returns the opaque.IdentityLen Crockford symbols of s in their canonical
// spelling, or what is wrong with s: the part of a form after its prefix, if any.
func canonicalSymbols(s string) (string, error) {
	if len(s) != opaque.IdentityLen {
		return "", fmt.Errorf("%d characters, an opaque form has %d", len(s), opaque.IdentityLen)
	}
	form := []byte(s)
	for i := range form {
		v, ok := flake.CrockfordValue(form[i])
		if !ok {
			return "", fmt.Errorf("%q at %d is not a Crockford base-32 symbol", form[i], i)
		}
		form[i] = flake.CrockfordAlphabet[v]
	}
	return string(form), nil
}

// equalFoldASCII reports whether a and b are equal with ASCII letters compared in either
// case. Bytes of UTF-8 sequences are above ASCII, so letters beyond it must be equal.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
