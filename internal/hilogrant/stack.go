// Package hilogrant is the rule for giving a HiLo range back (ReturnHiLo), shared by the FSM
// (ranges reserved through Raft) and by a node's pools (package hilopool): which ranges of a
// tag can still be returned, by whom, and what a return takes back.
//
// A grant carries an identity, the request_id of the NextHiLo call that got it or one the
// node made up, which NextHiLoResponse.grant_id answers. A return must present it: only the
// grantee can give a range back. A range can be returned while it is the newest of its tag,
// once. So that a client can give back both its current range's tail and the range it
// prefetched after it, the grant just below the newest is remembered too when the two are
// contiguous: once the newest is returned whole, the one below is the newest again.
package hilogrant

import (
	"errors"
	"fmt"
)

// Errors of a return that cannot be right whatever the tag's state.
var (
	// ErrNoGrantID means a ReturnHiLo without grant_id: nobody can tell whether the caller is
	// the range's grantee, so nothing is given back. Send NextHiLoResponse.grant_id.
	ErrNoGrantID = errors.New("grant_id is required: a HiLo range goes back only from the client it was granted to; " +
		"send the grant_id that NextHiLo answered (without it the unused numbers stay a gap, which HiLo allows)")

	// ErrLastAboveEnd means a return whose last is above its end: no range has that tail.
	ErrLastAboveEnd = errors.New("last must not be above end")

	// ErrNotGrantedRange means a return that names the newest grant but not its range: end
	// is not its high end, or last is below its low end - 1.
	ErrNotGrantedRange = errors.New("end and last do not describe the range granted as grant_id")

	// ErrIDTooLong means a grant id (a request_id or grant_id) longer than MaxIDLength: it would
	// be kept in the log, the FSM and its snapshots.
	ErrIDTooLong = fmt.Errorf("a request_id or grant_id is at most %d bytes", MaxIDLength)
)

// MaxIDLength bounds a grant's identity. A random id needs 30 bytes or so (the Go client's
// request ids are 31); 256 leave room for any client's scheme.
const MaxIDLength = 256

// CheckID reports whether id may be a grant's identity.
func CheckID(id string) error {
	if len(id) > MaxIDLength {
		return fmt.Errorf("%w (got %d bytes)", ErrIDTooLong, len(id))
	}
	return nil
}

// Grant is one range, Low..High, granted as ID. The zero Grant is none.
type Grant struct {
	ID        string
	Low, High int64
}

// Stack is the returnable grants of one tag (or pool): Newest, and Below, the grant just under
// it (Below.High+1 == Newest.Low) made before it. Zero grants are none.
type Stack struct {
	Newest, Below Grant
}

// Push records g as the newest grant. The previous newest stays returnable, below g, when g
// starts right after it; otherwise it never can be again. A grant without an identity can
// never be returned, nor anything below it, so it leaves no grant at all: a stack holds no
// grant it cannot give back, and a snapshot that writes the stack restores the same one.
func (s *Stack) Push(g Grant) {
	switch {
	case g.ID == "":
		s.Clear()
		return
	case s.Newest.ID != "" && s.Newest.High+1 == g.Low:
		s.Below = s.Newest
	default:
		s.Below = Grant{}
	}
	s.Newest = g
}

// Clear forgets every grant: numbers above them were reserved some other way (a pool, a seed,
// a restore), so none of them may come back.
func (s *Stack) Clear() { *s = Stack{} }

// Return gives back last+1..end of the grant id. It reports true when id is the newest grant
// and end and last describe its tail: then those numbers come back (none when last == end),
// and the grant can never be returned again; the one below becomes the newest when the whole
// range came back. It reports false, changing nothing, when id is not the newest grant (it was
// returned already, a newer range was granted since, or it never was one): a gap, which HiLo
// allows. An error changes nothing either.
func (s *Stack) Return(id string, end, last int64) (bool, error) {
	if err := CheckReturn(id, end, last); err != nil {
		return false, err
	}
	n := s.Newest
	if n.ID == "" || n.ID != id {
		return false, nil
	}
	if end != n.High || last < n.Low-1 {
		return false, fmt.Errorf("%w (%d..%d; end %d, last %d)", ErrNotGrantedRange, n.Low, n.High, end, last)
	}
	if last == n.Low-1 {
		s.Newest, s.Below = s.Below, Grant{}
	} else {
		s.Clear() // the grant's low..last stays in use
	}
	return true, nil
}

// CheckReturn reports what is wrong with a return of last+1..end of grant id whatever the
// tag's state: the check a node makes before the return goes anywhere.
func CheckReturn(id string, end, last int64) error {
	switch {
	case end < 0 || last < 0:
		return fmt.Errorf("%w: end and last must not be negative (end %d, last %d)", ErrNotGrantedRange, end, last)
	case last > end:
		return fmt.Errorf("%w (end %d, last %d)", ErrLastAboveEnd, end, last)
	case id == "":
		return ErrNoGrantID
	}
	return CheckID(id)
}
