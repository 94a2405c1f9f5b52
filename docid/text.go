package docid

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxLength is the longest document ID or request string accepted, in bytes of UTF-8.
const MaxLength = 2025

// maxPrefixLength bounds identity names, server-side prefixes and HiLo tags. It leaves room for
// the longest suffix a strategy appends (separator, a 64-bit number, '-', node tag), so every
// generated ID is itself a valid document ID that can be stored and sent back.
const maxPrefixLength = MaxLength - utf8.UTFMax - len("18446744073709551615") - len("-") - maxNodeTagLength

// checkText applies the rules every stored string shares. what names the string in the message
// ("document id", "identity name", ...). Length comes first so a huge input is not scanned.
func checkText(what, s string, maxLen int) error {
	if len(s) > maxLen {
		return invalid(lengthRule(what, maxLen), s)
	}
	if !utf8.ValidString(s) {
		return invalid(what+" is not valid UTF-8", s)
	}
	for _, r := range s {
		switch {
		case r == '\\':
			return invalid(what+" contains a backslash", s)
		case unicode.IsControl(r):
			// Invisible in logs and terminals: two IDs that print the same would differ.
			return invalid(what+" contains a control character", s)
		case unicode.Is(unicode.Cf, r):
			// Format characters (zero-width space U+200B, bidi overrides like U+202E, the BOM
			// U+FEFF, soft hyphen …) are invisible or reorder what is shown: "users/s\u200bam"
			// prints as "users/sam" but is another ID, and a BOM made "\ufeffusers" a counter
			// of its own.
			return invalid(fmt.Sprintf("%s contains an invisible format character %U (Unicode category Cf)", what, r), s)
		}
	}
	return nil
}

func lengthRule(what string, maxLen int) string {
	return fmt.Sprintf("%s is longer than %d bytes", what, maxLen)
}

// ValidateUTF8 checks that s, named what in the message, is valid UTF-8.
func ValidateUTF8(what, s string) error {
	if !utf8.ValidString(s) {
		return invalid(what+" is not valid UTF-8", s)
	}
	return nil
}
