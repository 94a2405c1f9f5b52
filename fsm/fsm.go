// Package fsm is idnode's replicated state machine: identity counters, HiLo maxima, the node
// registry and the table of answered request ids. It is deterministic (no clock, no
// randomness, no map order in any output) and knows nothing of gRPC or the network.
package fsm

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var (
	_ raft.FSM         = (*FSM)(nil)
	_ raft.BatchingFSM = (*FSM)(nil)
)

// FSM applies committed log entries. Raft calls Apply/ApplyBatch from a single goroutine;
// the read methods may be called concurrently from anywhere.
type FSM struct {
	mu sync.RWMutex
	st *state
}

// New returns an empty FSM.
func New() *FSM {
	return &FSM{st: newState()}
}

// command is one entry of the command table: the message it carries and how it is applied.
type command struct {
	message protoreflect.FullName
	apply   func(st *state, payload []byte) any
}

// commands is the table of commands, keyed by the entry's first byte: one function each.
var commands = map[CommandType]command{
	IdentityBatchCommand: handle((*state).applyIdentityBatch),
	SeedIdentityCommand:  handle((*state).applySeedIdentity),
	HiLoReserveCommand:   handle((*state).applyHiLoReserve),
	HiLoReturnCommand:    handle((*state).applyHiLoReturn),
	RegisterNodeCommand:  handle((*state).applyRegisterNode),
	RemoveNodeCommand:    handle((*state).applyRemoveNode),
	RaiseFloorCommand:    handle((*state).applyRaiseFloor),
}

// handle makes a table entry from a typed apply function; the entry unmarshals the payload.
func handle[M any, PM interface {
	*M
	proto.Message
}](apply func(*state, PM) any) command {
	return command{
		message: PM(new(M)).ProtoReflect().Descriptor().FullName(),
		apply: func(st *state, payload []byte) any {
			m := PM(new(M))
			if err := proto.Unmarshal(payload, m); err != nil {
				return fmt.Errorf("%w: %v", ErrMalformedCommand, err)
			}
			return apply(st, m)
		},
	}
}

// Apply implements raft.FSM.
func (f *FSM) Apply(l *raft.Log) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.apply(l)
}

// ApplyBatch implements raft.BatchingFSM: one lock for many entries.
func (f *FSM) ApplyBatch(logs []*raft.Log) []any {
	out := make([]any, len(logs))
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, l := range logs {
		out[i] = f.st.apply(l)
	}
	return out
}

func (st *state) apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	return st.applyCommand(l.Data)
}

// applyCommand dispatches one framed command.
func (st *state) applyCommand(data []byte) any {
	if len(data) == 0 {
		return fmt.Errorf("%w: empty entry", ErrMalformedCommand)
	}
	c, ok := commands[CommandType(data[0])]
	if !ok {
		return fmt.Errorf("%w (type %d)", ErrUnknownCommand, data[0])
	}
	return c.apply(st, data[1:])
}
