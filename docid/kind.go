package docid

import (
	"strconv"
	"unicode/utf8"
)

// Kind is the strategy a call asks for: a request string's (Classify), or HiLo for a range.
// Its String is the strategy's one name, which metrics and logs print.
type Kind int

// The zero Kind is left unused so that a Request nobody filled in is not mistaken for a real one.
const (
	Semantic   Kind = iota + 1 // "users/ayende": echoed after validation
	GUID                       // "": a UUID
	ServerSide                 // "users/" (ends with the separator): node etag
	Identity                   // "users|" (ends with a pipe): cluster identity
	HiLo                       // a NextHiLo range; never a request string's kind
)

// Kinds are every strategy, in the order above.
var Kinds = []Kind{Semantic, GUID, ServerSide, Identity, HiLo}

func (k Kind) String() string {
	switch k {
	case Semantic:
		return "semantic"
	case GUID:
		return "guid"
	case ServerSide:
		return "server-side"
	case Identity:
		return "identity"
	case HiLo:
		return "hilo"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Classify is the kind of request string s by its last character (sep is the cluster
// separator), without validating it: Parse does both.
func Classify(s string, sep rune) Kind {
	if s == "" {
		return GUID
	}
	switch last, _ := utf8.DecodeLastRuneInString(s); last {
	case '|':
		return Identity
	case sep:
		return ServerSide
	}
	return Semantic
}
