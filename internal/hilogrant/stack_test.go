package hilogrant

import (
	"errors"
	"strings"
	"testing"
)

func TestStackKeepsTheGrantBelowOnlyWhenContiguous(t *testing.T) {
	var s Stack
	s.Push(Grant{ID: "a", Low: 1, High: 32})
	s.Push(Grant{ID: "b", Low: 33, High: 96})
	if s.Below.ID != "a" {
		t.Fatalf("after a contiguous push, Below = %+v, want a", s.Below)
	}
	s.Push(Grant{ID: "c", Low: 200, High: 231})
	if s.Below != (Grant{}) {
		t.Fatalf("after a push above a gap, Below = %+v, want none", s.Below)
	}
	s.Push(Grant{Low: 232, High: 263}) // no identity: neither it nor anything below can come back
	if s != (Stack{}) {
		t.Fatalf("after a push without an id, the stack is %+v, want no grant", s)
	}
	if ok, err := s.Return("", 263, 240); ok || !errors.Is(err, ErrNoGrantID) {
		t.Fatalf("a return without id = %v, %v; want ErrNoGrantID", ok, err)
	}
}

func TestStackReturnRules(t *testing.T) {
	for _, c := range []struct {
		name      string
		id        string
		end, last int64
		ok        bool
		err       error
		after     Stack
	}{
		{"whole newest: the one below is newest", "b", 96, 32, true, nil, Stack{Newest: Grant{"a", 1, 32}}},
		{"a tail: nothing more comes back", "b", 96, 40, true, nil, Stack{}},
		{"nothing unused: consumed", "b", 96, 96, true, nil, Stack{}},
		{"the one below first", "a", 32, 5, false, nil, stack()},
		{"another id", "x", 96, 32, false, nil, stack()},
		{"wrong end", "b", 95, 32, false, ErrNotGrantedRange, stack()},
		{"last below low-1", "b", 96, 31, false, ErrNotGrantedRange, stack()},
		{"last above end", "b", 96, 97, false, ErrLastAboveEnd, stack()},
		{"negative", "b", -1, -1, false, ErrNotGrantedRange, stack()},
		{"an id too long", strings.Repeat("b", MaxIDLength+1), 96, 32, false, ErrIDTooLong, stack()},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := stack()
			ok, err := s.Return(c.id, c.end, c.last)
			if ok != c.ok || !errors.Is(err, c.err) || (c.err == nil && err != nil) || s != c.after {
				t.Fatalf("Return(%q, %d, %d) = %v, %v, stack %+v; want %v, %v, %+v", c.id, c.end, c.last, ok, err, s, c.ok, c.err, c.after)
			}
		})
	}
}

// stack is a: 1..32 below b: 33..96.
func stack() Stack {
	var s Stack
	s.Push(Grant{ID: "a", Low: 1, High: 32})
	s.Push(Grant{ID: "b", Low: 33, High: 96})
	return s
}
