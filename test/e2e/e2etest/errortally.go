package e2etest

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"google.golang.org/grpc/status"
)

// maxDistinctErrors bounds the messages an errorTally keeps: a failing run may produce one
// message per call, and the first few say what went wrong.
const maxDistinctErrors = 20

// errorTally counts the errors callers saw, by gRPC code and by message, so a test that must
// see none can say what it saw instead. Safe for concurrent use.
type errorTally struct {
	mu       sync.Mutex
	total    int
	byCode   map[string]int
	messages map[string]int // "CODE: message", at most maxDistinctErrors of them
}

func NewErrorTally() *errorTally {
	return &errorTally{byCode: map[string]int{}, messages: map[string]int{}}
}

func (e *errorTally) add(err error) {
	st := status.Convert(err)
	msg := st.Code().String() + ": " + st.Message()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.total++
	e.byCode[st.Code().String()]++
	if _, seen := e.messages[msg]; seen || len(e.messages) < maxDistinctErrors {
		e.messages[msg]++
	}
}

func (e *errorTally) Count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.total
}

// String is "0 errors", or the counts by code and then by message, most frequent first.
func (e *errorTally) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.total == 0 {
		return "0 errors"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors: %v", e.total, e.byCode)
	msgs := make([]string, 0, len(e.messages))
	for m := range e.messages {
		msgs = append(msgs, m)
	}
	sort.Slice(msgs, func(i, j int) bool { return e.messages[msgs[i]] > e.messages[msgs[j]] })
	for _, m := range msgs {
		fmt.Fprintf(&b, "\n  %d× %s", e.messages[m], m)
	}
	return b.String()
}
