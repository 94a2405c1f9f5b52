package docid

import "strconv"

// Kind is the strategy a request string asks for.
type Kind int

// The zero Kind is left unused so that a Request nobody filled in is not mistaken for a real one.
const (
	Semantic   Kind = iota + 1 // "users/ayende": echoed after validation
	GUID                       // "": a UUID
	ServerSide                 // "users/" (ends with the separator): node etag
	Identity                   // "users|" (ends with a pipe): cluster identity
)

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
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}
