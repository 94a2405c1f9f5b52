package docid

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// DefaultSeparator joins the parts of identity results, server-side IDs and HiLo prefixes when
// the cluster does not configure another one.
const DefaultSeparator = '/'

// ParseSeparator validates a separator given as a string (a flag, a config file, a request
// field): it must be exactly one character that checkSeparator accepts.
func ParseSeparator(s string) (rune, error) {
	if !utf8.ValidString(s) {
		return 0, invalid("separator is not valid UTF-8", s)
	}
	if utf8.RuneCountInString(s) != 1 {
		return 0, invalid("separator must be exactly one character", s)
	}
	r, _ := utf8.DecodeRuneInString(s)
	if err := checkSeparator(r); err != nil {
		return 0, err
	}
	return r, nil
}

// checkSeparator goes beyond "printable, not '|'" where a separator would make the grammar
// ambiguous or produce IDs that break the text rules.
func checkSeparator(r rune) error {
	switch {
	case !utf8.ValidRune(r):
		return invalid("separator is not a valid Unicode character", fmt.Sprintf("%U", r))
	case r == '|':
		// A trailing '|' already means "identity request".
		return invalid("separator cannot be a pipe", string(r))
	case r == '\\':
		// Document IDs may not contain it, so no server-side request could ever use it.
		return invalid("separator cannot be a backslash", string(r))
	case unicode.IsLetter(r) || unicode.IsNumber(r):
		// Generated IDs end with a digit or a node-tag letter; with such a separator they, and
		// ordinary words, would read as server-side requests when sent back.
		return invalid("separator cannot be a letter or digit", string(r))
	case unicode.IsMark(r):
		// A combining mark joins the character before it, so it would not separate anything
		// when printed, and "name" + mark does not fold (NFKC) to fold("name") + mark, which
		// claims rely on to find an identity's prefix.
		return invalid("separator cannot be a combining mark", string(r))
	case !unicode.IsPrint(r) || unicode.IsSpace(r):
		// An invisible separator makes IDs that cannot be told apart when printed.
		return invalid("separator must be a printable, non-space character", string(r))
	}
	return nil
}
