// Package fsm is idnode's replicated state machine: identity counters, HiLo maxima, the node
// registry and the table of answered request ids. It is deterministic (no clock, no
// randomness, no map order in any output) and knows nothing of gRPC or the network.
package fsm

import (
	"fmt"
	"log/slog"
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
	// halted is set by the first entry of a command type this build does not know and may not
	// skip; from then on nothing is applied (see apply).
	halted bool
	onHalt func(Halt)
	// journal is the series store (series.go); every state the FSM holds shares it.
	journal *journal
	// marks is the latest digest marks (digestmark.go); every state the FSM holds shares it.
	marks *digestMarks
	// applied is the index of the last entry applied, or of the restored snapshot (0 when an
	// older build wrote it): the index a state digest is taken at (digest.go).
	applied uint64
	// log is where the FSM says what an operator should know (SetLogger).
	log *slog.Logger
}

// Halt says why the FSM stopped applying the log: a command this build does not know
// (ErrUnknownCommand), or a series journal it could not write (ErrJournalWrite).
type Halt struct {
	Index   uint64
	Command CommandType
	Err     error
}

// New returns an empty FSM.
func New() *FSM {
	j := &journal{}
	st := newState()
	st.journal = j
	st.marks = &digestMarks{}
	return &FSM{st: st, journal: j, marks: st.marks}
}

// command is one entry of the command table: the message it carries and how it is applied.
type command struct {
	message protoreflect.FullName
	apply   func(st *state, payload []byte) any
}

// commands is the table of commands, keyed by the entry's first byte: one function each.
var commands = map[CommandType]command{
	IdentityBatchCommand:     handle((*state).applyIdentityBatch),
	SeedIdentityCommand:      handle((*state).applySeedIdentity),
	HiLoReserveCommand:       handleIn(hiloTags.applyHiLoReserve),
	HiLoReturnCommand:        handleIn(hiloTags.applyHiLoReturn),
	RegisterNodeCommand:      handle((*state).applyRegisterNode),
	RemoveNodeCommand:        handle((*state).applyRemoveNode),
	RaiseFloorCommand:        handle((*state).applyRaiseFloor),
	SetClusterSecretCommand:  handle((*state).applySetClusterSecret),
	CreateDatabaseCommand:    handle((*state).applyCreateDatabase),
	DeleteDatabaseCommand:    handle((*state).applyDeleteDatabase),
	CreateKeyCommand:         handle((*state).applyCreateKey),
	DeleteKeyCommand:         handle((*state).applyDeleteKey),
	SeedHiLoCommand:          handleIn(hiloTags.applySeedHiLo),
	ClaimCommand:             handleIn(claimBook.applyClaim),
	ReleaseCommand:           handleIn(claimBook.applyRelease),
	HiLoPoolReserveCommand:   handleIn(hiloTags.applyHiLoPoolReserve),
	HiLoGrantCommand:         handleIn(hiloTags.applyHiLoGrant),
	HiLoReturnGrantCommand:   handleIn(hiloTags.applyHiLoReturnGrant),
	SetFoldCommand:           handle((*state).applySetFold),
	LocalReservationsCommand: handle((*state).applyLocalReservations),
	CreateSeriesCommand:      handleIn(fiscalSeries.applyCreateSeries),
	SeriesIssueBatchCommand:  handleIn(fiscalSeries.applySeriesIssueBatch),
	SeriesVoidCommand:        handleIn(fiscalSeries.applySeriesVoid),
	RestoreSeriesCommand:     handleIn(fiscalSeries.applyRestoreSeries),
	AcquireWorkerCommand:     handleIn(workerLeases.applyAcquireWorker),
	RenewWorkerCommand:       handleIn(workerLeases.applyRenewWorker),
	ReleaseWorkerCommand:     handleIn(workerLeases.applyReleaseWorker),
	ReleaseOwnerCommand:      handleIn(claimBook.applyReleaseOwner),
	NodeVersionCommand:       handle((*state).applyNodeVersion),
	SetClusterVersionCommand: handle((*state).applySetClusterVersion),
	MakeOpaqueCommand:        handle((*state).applyMakeOpaque),
	DigestMarkCommand:        handle((*state).applyDigestMark),
	FenceReplicaCommand:      handle((*state).applyFenceReplica),
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

// OnHalt sets what the FSM calls, once, when it halts: the node must stop (cmd/idnode
// exits). Set it before raft starts.
func (f *FSM) OnHalt(fn func(Halt)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onHalt = fn
}

// SetLogger sets where the FSM logs (slog's default until set). Set it before raft starts.
func (f *FSM) SetLogger(l *slog.Logger) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = l
}

func (f *FSM) logger() *slog.Logger {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.log == nil {
		return slog.Default()
	}
	return f.log
}

// Halted reports whether the FSM met a command it does not know and stopped applying.
func (f *FSM) Halted() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.halted
}

// Apply implements raft.FSM.
func (f *FSM) Apply(l *raft.Log) any {
	f.mu.Lock()
	out := f.apply(l)
	due := f.journal.due()
	f.mu.Unlock()
	if due {
		if err := f.FlushSeries(); err != nil {
			return err
		}
	}
	return out
}

// ApplyBatch implements raft.BatchingFSM: one lock for many entries.
func (f *FSM) ApplyBatch(logs []*raft.Log) []any {
	out := make([]any, len(logs))
	f.mu.Lock()
	for i, l := range logs {
		out[i] = f.apply(l)
	}
	due := f.journal.due()
	f.mu.Unlock()
	if due {
		if err := f.FlushSeries(); err != nil {
			for i := range out {
				out[i] = err
			}
		}
	}
	return out
}

// halt stops applying, once.
func (f *FSM) halt(h Halt) {
	f.halted = true
	if f.onHalt != nil {
		f.onHalt(h)
	}
}

// apply applies one entry. A command type this build does not know is skipped when it
// carries the Ignorable bit; otherwise the FSM halts: answering it with an error and going on
// would leave this replica without a change that newer replicas made, and every later answer
// could differ (Consul's FSM does the same). A halted FSM applies nothing more and refuses to
// snapshot, so the entry stays in the log for an upgraded build to apply.
func (f *FSM) apply(l *raft.Log) any {
	if f.halted {
		return ErrHalted
	}
	f.applied = l.Index
	if l.Type != raft.LogCommand {
		return nil
	}
	if len(l.Data) == 0 {
		return fmt.Errorf("%w: empty entry", ErrMalformedCommand)
	}
	t := CommandType(l.Data[0])
	if c, ok := commands[t]; ok {
		f.journal.index = l.Index
		// Refused or not, the entry is in the log, where an older build would halt on it.
		// Version 1 is left 0, so a state of older commands writes the bytes it always did.
		if v := VersionOf(t); v > max(f.st.versionUsed, 1) {
			f.st.versionUsed = v
		}
		return c.apply(f.st, l.Data[1:])
	}
	if t&Ignorable != 0 {
		return nil
	}
	err := fmt.Errorf("%w (type %d at index %d)", ErrUnknownCommand, t, l.Index)
	f.halt(Halt{Index: l.Index, Command: t, Err: err})
	return fmt.Errorf("%w: %w", ErrHalted, err)
}
