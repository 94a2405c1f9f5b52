package docid

import (
	"strings"
	"unicode/utf8"
)

// Request is a classified, validated request string.
type Request struct {
	Kind   Kind
	Raw    string // as given
	Prefix string // ServerSide: Raw itself, e.g. "users/"; Identity: Raw without the trailing '|', e.g. "users"; else ""
}

// Parse classifies s by its last character (sep is the cluster separator) and validates it by the
// ID grammar's rules. An invalid sep is reported like any other bad input, so a misconfigured
// separator fails loudly instead of silently turning server-side requests into semantic IDs.
func Parse(s string, sep rune) (Request, error) {
	if err := checkSeparator(sep); err != nil {
		return Request{}, err
	}
	kind := Classify(s, sep)
	if kind == GUID {
		return Request{Kind: GUID}, nil
	}
	if err := checkText("document id", s, MaxLength); err != nil {
		return Request{}, err
	}
	switch _, size := utf8.DecodeLastRuneInString(s); kind {
	case Identity:
		name := s[:len(s)-size]
		switch {
		case name == "":
			return Request{}, invalid("identity name is empty", s)
		case strings.ContainsRune(name, '|'):
			// '|' is the identity marker: inside a name it is two requests run together or a typo.
			return Request{}, invalid("identity name contains a pipe", s)
		case len(name) > maxPrefixLength:
			return Request{}, invalid(lengthRule("identity name", maxPrefixLength), s)
		}
		return Request{Kind: Identity, Raw: s, Prefix: name}, nil
	case ServerSide:
		switch {
		case len(s) == size:
			return Request{}, invalid("server-side prefix is empty", s)
		case len(s) > maxPrefixLength:
			return Request{}, invalid(lengthRule("server-side prefix", maxPrefixLength), s)
		}
		return Request{Kind: ServerSide, Raw: s, Prefix: s}, nil
	}
	return Request{Kind: Semantic, Raw: s}, nil
}
