package fsm

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// FuzzFSM's seeds for nodes' minters in a database whose numeric IDs are opaque, as
// decodeCommands reads them (fuzzHolders[8] is node:A, [9] node:B).
var (
	// The default database's numeric IDs turn opaque; node A registers; node:A leases worker
	// 0, p and node:B (unregistered) are refused; node:A renews and releases worker 0, and
	// leases again (worker 1, request r1); A is removed, and a retry of that lease is refused.
	fuzzSeedNodeLeases = []byte{cmdMakeOpaque, 0, 0, 0, 0, 1, 0, cmdRegisterNode, 0, 0, 0, 0, 0,
		cmdAcquireWorker, 0, 8, 0, 4, 0, 0, cmdAcquireWorker, 0, 0, 0, 4, 0, 0, cmdAcquireWorker, 0, 9, 0, 4, 0, 0,
		cmdRenewWorker, 0, 0, 1, 4, 0, cmdReleaseWorker, 0, 0, 1, 0, cmdAcquireWorker, 0, 8, 0, 4, 0, 1,
		cmdRemoveNode, 0, cmdAcquireWorker, 0, 8, 0, 4, 0, 1}
	// The default database's numeric IDs turn opaque; a backup's worker 0 held by node:A, of a
	// database opaque there too, is restored, and a backup's worker 1 held by p, of a plain
	// one, is refused; node A registers and renews the restored lease.
	fuzzSeedRestoredNodeLease = []byte{cmdMakeOpaque, 0, 0, 0, 0, 1, 0,
		cmdRaiseWorker, 0, 0, 1, 8, 0, 0, 0, 0, 1, cmdRaiseWorker, 0, 1, 1, 0, 0, 0, 0, 0, 0,
		cmdRegisterNode, 0, 0, 0, 0, 0, cmdRenewWorker, 0, 0, 1, 4, 0}
)

// TestFuzzSeedsReachNodeLeases keeps the seeds meaning what their comments say: a change to
// the decoder's byte layout that moved them off nodes' minters fails here, not silently.
func TestFuzzSeedsReachNodeLeases(t *testing.T) {
	lease := func(worker uint32, holder string) func(any) bool {
		return func(a any) bool {
			l, ok := a.(WorkerLease)
			return ok && l.Worker == worker && l.Holder == holder
		}
	}
	refused := func(want error) func(any) bool {
		return func(a any) bool { err, ok := a.(error); return ok && errors.Is(err, want) }
	}
	numeric := func(a any) bool { s, ok := a.(OpaqueSetting); return ok && s.Numeric }
	nodeA := func(a any) bool { n, ok := a.(Node); return ok && n.Tag == "A" }
	released := func(a any) bool { return a == nil }
	for _, tc := range []struct {
		name  string
		input []byte
		want  []func(any) bool
	}{
		{"granted, renewed, released", fuzzSeedNodeLeases, []func(any) bool{
			numeric, nodeA, lease(0, "node:A"), refused(ErrOpaqueClientLease), refused(ErrOpaqueClientLease),
			lease(0, "node:A"), released, lease(1, "node:A"), nodeA, refused(ErrOpaqueClientLease)}},
		{"restored", fuzzSeedRestoredNodeLease, []func(any) bool{
			numeric, func(a any) bool { r, ok := a.(RaiseFloorResult); return ok && r.WorkersRaised == 1 },
			refused(ErrOpaqueWouldCollide), nodeA, lease(0, "node:A")}},
	} {
		cmds := decodeCommands(tc.input)
		if len(cmds) != len(tc.want) {
			t.Fatalf("%s: %d commands, want %d", tc.name, len(cmds), len(tc.want))
		}
		f := New()
		for i, c := range cmds {
			if a := f.Apply(&raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: c}); !tc.want[i](a) {
				t.Errorf("%s: command %d (type %d) answered %s", tc.name, i, c[0], describeAnswer(a))
			}
		}
	}
}

// opaqueNumericRule reads what the rule "a database's numeric IDs are opaque only while every
// worker it leased is a registered node's minter's" needs to judge the entry l before it
// applies to f, and returns the check of its answer. The rule is read from the FSM's public
// answers, not from the code that enforces it: a lease to anyone but node:<registered tag> in
// an opaque-numeric database, numeric IDs turning opaque over leased workers, or a backup's
// plain workers coming into opaque numeric IDs fail it.
func opaqueNumericRule(f *FSM, l *raft.Log) func(answer any) error {
	ok := func(any) error { return nil }
	if len(l.Data) == 0 {
		return ok
	}
	opaqueNumeric := func(db string) bool { s, found := f.Opaque(db); return found && s.Numeric }
	body := l.Data[1:]
	switch CommandType(l.Data[0]) {
	case AcquireWorkerCommand:
		c := &raftv1.AcquireWorker{}
		if proto.Unmarshal(body, c) != nil || !opaqueNumeric(c.GetDatabase()) {
			return ok
		}
		minters := make([]string, 0, 4)
		for _, n := range f.Nodes() {
			minters = append(minters, NodeHolderPrefix+n.Tag)
		}
		return func(a any) error {
			if got, leased := a.(WorkerLease); leased && !slices.Contains(minters, got.Holder) {
				return fmt.Errorf("database %q has opaque numeric IDs and leased worker %d to %q; its nodes' minters are %q",
					c.GetDatabase(), got.Worker, got.Holder, minters)
			}
			return nil
		}
	case MakeOpaqueCommand:
		c := &raftv1.MakeOpaque{}
		if proto.Unmarshal(body, c) != nil || !c.GetNumeric() || opaqueNumeric(c.GetDatabase()) {
			return ok
		}
		workers, _ := f.Workers(c.GetDatabase())
		return func(a any) error {
			if s, made := a.(OpaqueSetting); made && s.Numeric && len(workers) > 0 {
				return fmt.Errorf("database %q's numeric IDs turned opaque over %d leased workers", c.GetDatabase(), len(workers))
			}
			return nil
		}
	case RaiseFloorCommand:
		c := &raftv1.RaiseFloor{}
		if proto.Unmarshal(body, c) != nil {
			return ok
		}
		var plainHere []string // databases opaque-numeric here whose backup's workers were plain
		for _, w := range c.GetWorkers() {
			name := DatabaseName(w.GetDatabase())
			named := slices.ContainsFunc(c.GetOpaqueNumericDatabases(), func(db string) bool { return DatabaseName(db) == name })
			if opaqueNumeric(w.GetDatabase()) && !named {
				plainHere = append(plainHere, name)
			}
		}
		return func(a any) error {
			if _, raised := a.(RaiseFloorResult); raised && len(plainHere) > 0 {
				return fmt.Errorf("a restore brought plain numeric workers into %q, whose numeric IDs are opaque", plainHere)
			}
			return nil
		}
	}
	return ok
}
