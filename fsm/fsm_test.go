package fsm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/docid"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// mustApply encodes and applies one command the way raft would, returning its response.
func mustApply(t testing.TB, f *FSM, typ CommandType, m proto.Message) any {
	t.Helper()
	data, err := Encode(typ, m)
	if err != nil {
		t.Fatal(err)
	}
	return f.Apply(&raft.Log{Type: raft.LogCommand, Data: data})
}

func mustIdentity(t *testing.T, f *FSM, name string, count int64, requestID string) IdentityRange {
	t.Helper()
	res, ok := mustApply(t, f, IdentityBatchCommand, &raftv1.IdentityBatch{
		Increments: []*raftv1.IdentityIncrement{{Name: name, Count: count, RequestId: requestID}},
	}).(IdentityBatchResult)
	if !ok || len(res.Ranges) != 1 {
		t.Fatalf("identity batch answered %#v", res)
	}
	return res.Ranges[0]
}

func mustSeed(t *testing.T, f *FSM, name string, value int64, force bool) int64 {
	t.Helper()
	v, ok := mustApply(t, f, SeedIdentityCommand, &raftv1.SeedIdentity{Name: name, Value: value, Force: force}).(int64)
	if !ok {
		t.Fatalf("seed %s=%d answered a non-value", name, value)
	}
	return v
}

func mustReserve(t *testing.T, f *FSM, r *raftv1.HiLoReserve) HiLoRange {
	t.Helper()
	rng, ok := mustApply(t, f, HiLoReserveCommand, r).(HiLoRange)
	if !ok {
		t.Fatalf("reserve %v did not answer a range", r)
	}
	return rng
}

// snapshotBytes returns the bytes a snapshot of f persists.
func snapshotBytes(t *testing.T, f *FSM) []byte {
	t.Helper()
	s, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.(*snapshot).write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustRestore(t *testing.T, data []byte) *FSM {
	t.Helper()
	f := New()
	f.SetLogger(slog.New(slog.DiscardHandler)) // most tests' snapshots carry no digest
	if err := f.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestIdentityBlocksAreConsecutive(t *testing.T) {
	f := New()
	want := int64(1)
	for _, count := range []int64{1, 1, 5, 1, 100, 3} {
		r := mustIdentity(t, f, "users", count, "")
		if r.Err != nil || r.First != want || r.Last != want+count-1 {
			t.Fatalf("count %d: got %+v, want %d..%d", count, r, want, want+count-1)
		}
		want += count
	}
}

func TestIdentityPrefixesFoldCase(t *testing.T) {
	f := New()
	mustIdentity(t, f, "users", 2, "")
	if r := mustIdentity(t, f, "Users", 1, ""); r.First != 3 {
		t.Fatalf("Users| after two users| = %d, want 3", r.First)
	}
	if r := mustIdentity(t, f, "orders", 1, ""); r.First != 1 {
		t.Fatalf("a new prefix starts at %d, want 1", r.First)
	}
	page, _, _ := f.Identities("", "", "", 10)
	if len(page) != 2 || page[1] != (Identity{Database: DefaultDatabase, Name: "users", Value: 3}) {
		t.Fatalf("listing = %+v, want orders then users=3 under the first spelling", page)
	}
}

func TestIdentityBatchAnswersEachIncrement(t *testing.T) {
	f := New()
	res := mustApply(t, f, IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{
		{Name: "a", Count: 2}, {Name: "b", Count: 1}, {Name: "A", Count: 3}, {Name: "a", Count: 0},
	}}).(IdentityBatchResult)
	want := []IdentityRange{{IdentityBlock: docid.IdentityBlock{First: 1, Last: 2}}, {IdentityBlock: docid.IdentityBlock{First: 1, Last: 1}}, {IdentityBlock: docid.IdentityBlock{First: 3, Last: 5}}, {Err: ErrInvalidCount}}
	for i, w := range want {
		if got := res.Ranges[i]; got.First != w.First || got.Last != w.Last || !errors.Is(got.Err, w.Err) {
			t.Errorf("increment %d = %+v, want %+v", i, got, w)
		}
	}
}

func TestIdentityOverflowIsRefused(t *testing.T) {
	f := New()
	mustSeed(t, f, "big", 1<<63-2, false)
	if r := mustIdentity(t, f, "big", 2, ""); !errors.Is(r.Err, ErrCounterOverflow) {
		t.Fatalf("overflowing increment = %+v", r)
	}
	if r := mustIdentity(t, f, "big", 1, ""); r.Err != nil || r.First != 1<<63-1 {
		t.Fatalf("last value = %+v", r)
	}
}

func TestSeedRaisesAndForceSets(t *testing.T) {
	f := New()
	if v := mustSeed(t, f, "invoices", 654, false); v != 654 {
		t.Fatalf("seed 654 = %d", v)
	}
	if v := mustSeed(t, f, "invoices", 100, false); v != 654 {
		t.Fatalf("seed 100 without force = %d, want 654", v)
	}
	if r := mustIdentity(t, f, "Invoices", 1, ""); r.First != 655 {
		t.Fatalf("next after seed = %d, want 655", r.First)
	}
	if v := mustSeed(t, f, "invoices", 10, true); v != 10 {
		t.Fatalf("force seed 10 = %d", v)
	}
	if r := mustIdentity(t, f, "invoices", 1, ""); r.First != 11 {
		t.Fatalf("next after force seed = %d, want 11", r.First)
	}
	if err, _ := mustApply(t, f, SeedIdentityCommand, &raftv1.SeedIdentity{Name: "x", Value: -1}).(error); !errors.Is(err, ErrNegativeValue) {
		t.Fatalf("negative seed = %v", err)
	}
}

func TestReplayedRequestIDReturnsTheSameValues(t *testing.T) {
	f := New()
	first := mustIdentity(t, f, "users", 3, "req-1")
	mustIdentity(t, f, "users", 1, "")
	again := mustIdentity(t, f, "USERS", 3, "req-1")
	if !reflect.DeepEqual(again, first) {
		t.Fatalf("replay = %+v, want %+v", again, first)
	}
	if next := mustIdentity(t, f, "users", 1, ""); next.First != 5 {
		t.Fatalf("the replay burned values: next = %d, want 5", next.First)
	}
	if r := mustIdentity(t, f, "orders", 3, "req-1"); !errors.Is(r.Err, ErrRequestIDReused) {
		t.Fatalf("request id reused for another name = %+v", r)
	}
	if r := mustIdentity(t, f, "users", 2, "req-1"); !errors.Is(r.Err, ErrRequestIDReused) {
		t.Fatalf("request id reused for another count = %+v", r)
	}
}

func TestRequestTableExpiresByLogClockAndSize(t *testing.T) {
	f := New()
	apply := func(id string, at int64) IdentityRange {
		return mustApply(t, f, IdentityBatchCommand, &raftv1.IdentityBatch{
			ProposedAtMs: at, Increments: []*raftv1.IdentityIncrement{{Name: "x", Count: 1, RequestId: id}},
		}).(IdentityBatchResult).Ranges[0]
	}
	old := apply("old", 1_000)
	if r := apply("old", 1_000+requestTTLMillis); !reflect.DeepEqual(r, old) {
		t.Fatalf("answer forgotten before its TTL: %+v", r)
	}
	if r := apply("old", 2_000+requestTTLMillis); reflect.DeepEqual(r, old) {
		t.Fatal("answer kept past its TTL")
	}
	// An earlier proposer clock (another leader) never moves expiry backwards.
	apply("fresh", 10)
	if f.st.requests.nowMs != 2_000+requestTTLMillis {
		t.Fatalf("clock moved back to %d", f.st.requests.nowMs)
	}
	for i := range maxRequests + 10 {
		f.st.requests.record(&raftv1.RequestRecord{RequestId: fmt.Sprintf("cap-%d", i)})
	}
	if n := len(f.st.requests.live()); n != maxRequests || len(f.st.requests.byID) != maxRequests {
		t.Fatalf("table holds %d/%d answers, want %d", n, len(f.st.requests.byID), maxRequests)
	}
}

func TestHiLoReservationsNeverOverlapAndMaxNeverFalls(t *testing.T) {
	f := New()
	r1 := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32})
	if r1 != (HiLoRange{Low: 1, High: 32}) {
		t.Fatalf("first range = %+v", r1)
	}
	r2 := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "Orders", Capacity: 64})
	if r2 != (HiLoRange{Low: 33, High: 96}) {
		t.Fatalf("second range = %+v", r2)
	}
	// last_max above Max moves the start up; below it changes nothing.
	if r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 10, LastMax: 500}); r != (HiLoRange{Low: 501, High: 510}) {
		t.Fatalf("range above last_max = %+v", r)
	}
	if r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 10, LastMax: 3}); r != (HiLoRange{Low: 511, High: 520}) {
		t.Fatalf("range with a stale last_max = %+v", r)
	}
	if f.HiLoMax("", "ORDERS") != 520 {
		t.Fatalf("Max = %d", f.HiLoMax("", "orders"))
	}
	for _, bad := range []*raftv1.HiLoReserve{{Tag: "orders", Capacity: 0}, {Tag: "orders", Capacity: 5, LastMax: -1}} {
		if _, ok := mustApply(t, f, HiLoReserveCommand, bad).(error); !ok {
			t.Errorf("reserve %v accepted", bad)
		}
	}
	if f.HiLoMax("", "orders") != 520 {
		t.Fatalf("a refused reservation changed Max to %d", f.HiLoMax("", "orders"))
	}
}

func TestHiLoReturnOnlyUnderItsConditions(t *testing.T) {
	f := New()
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32}) // 1..32
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32}) // 33..64
	ret := func(end, last int64) int64 {
		return mustApply(t, f, HiLoReturnCommand, &raftv1.HiLoReturn{Tag: "orders", End: end, Last: last}).(int64)
	}
	cases := []struct {
		name      string
		end, last int64
		wantMax   int64
	}{
		{"end is not Max", 32, 10, 64},
		{"last above Max", 64, 70, 64},
		{"last below the newest range would free numbers another client holds", 64, 20, 64},
		{"valid return of the tail", 64, 40, 40},
		{"second return of the same range does nothing", 64, 35, 40},
		{"return of an unknown tag does nothing", 0, 0, 40},
	}
	for _, c := range cases {
		if got := ret(c.end, c.last); got != c.wantMax || f.HiLoMax("", "orders") != c.wantMax {
			t.Errorf("%s: Max = %d, want %d", c.name, f.HiLoMax("", "orders"), c.wantMax)
		}
	}
	if r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32}); r.Low != 41 {
		t.Fatalf("range after return starts at %d, want 41", r.Low)
	}
	// A whole range given back unused (last = low-1) is allowed.
	if got := ret(72, 40); got != 40 {
		t.Fatalf("returning a whole unused range: Max = %d, want 40", got)
	}
}

func TestHiLoReplayedRequest(t *testing.T) {
	f := New()
	r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32, RequestId: "h1"})
	if again := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 64, RequestId: "h1"}); again != r {
		t.Fatalf("replay = %+v, want %+v", again, r)
	}
	if f.HiLoMax("", "orders") != 32 {
		t.Fatal("the replay reserved a new range")
	}
	mustApply(t, f, HiLoReturnCommand, &raftv1.HiLoReturn{Tag: "orders", End: 32, Last: 5})
	if err, _ := mustApply(t, f, HiLoReserveCommand, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32, RequestId: "h1"}).(error); !errors.Is(err, ErrRangeReturned) {
		t.Fatalf("replay of a returned range = %v, want ErrRangeReturned", err)
	}
	if err, _ := mustApply(t, f, HiLoReserveCommand, &raftv1.HiLoReserve{Tag: "users", Capacity: 32, RequestId: "h1"}).(error); !errors.Is(err, ErrRequestIDReused) {
		t.Fatalf("request id reused for another tag = %v", err)
	}
}

func TestNodeTagsAssignedInOrderAndNeverReused(t *testing.T) {
	f := New()
	register := func(tag, id string) any {
		return mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: tag, Id: id, RaftAddress: id + ":1", GrpcAddress: id + ":2"})
	}
	for i, want := range []string{"A", "B", "C"} {
		n, ok := register("", string(rune('a'+i))).(Node)
		if !ok || n.Tag != want {
			t.Fatalf("node %d got %v, want tag %s", i, n, want)
		}
	}
	if n := register("", "a").(Node); n.Tag != "A" {
		t.Fatalf("re-registering node a gave tag %s, want its own A", n.Tag)
	}
	if err, _ := register("B", "x").(error); !errors.Is(err, ErrTagInUse) {
		t.Fatalf("taken tag = %v", err)
	}
	if err, _ := register("Q", "a").(error); !errors.Is(err, ErrNodeIDInUse) {
		t.Fatalf("second tag for node a = %v", err)
	}
	if _, ok := register("raft", "y").(error); !ok {
		t.Fatal("lower-case tag accepted")
	}
	if _, ok := register("RAFT", "y").(error); !ok {
		t.Fatal("reserved tag RAFT accepted")
	}
	if _, ok := mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "B"}).(Node); !ok {
		t.Fatal("remove B failed")
	}
	if n, ok := mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "B"}).(Node); !ok || n.Tag != "B" {
		t.Fatalf("second remove of B = %v, want an idempotent success", n)
	}
	if err, _ := register("B", "b2").(error); !errors.Is(err, ErrTagRetired) {
		t.Fatalf("retired tag = %v", err)
	}
	if n := register("", "d").(Node); n.Tag != "D" {
		t.Fatalf("next assigned tag = %s, want D (B is retired)", n.Tag)
	}
	for i := 0; i < 22; i++ { // E … Z
		register("", "fill"+string(rune('a'+i)))
	}
	if n := register("", "z").(Node); n.Tag != "ZA" {
		t.Fatalf("tag after Z = %s, want ZA", n.Tag)
	}
}

func TestNodeIncarnations(t *testing.T) {
	f := New()
	register := func(tag, id, inc string) any {
		return mustApply(t, f, RegisterNodeCommand, registerCommand(tag, id, inc))
	}
	if n := register("C", "", "").(Node); n.ID != "C" || n.Incarnation != "" {
		t.Fatalf("operator registration = %+v, want id C and no incarnation yet", n)
	}
	if n := register("C", "C", "inc-1").(Node); n.Incarnation != "inc-1" {
		t.Fatalf("the node's own registration did not claim the tag: %+v", n)
	}
	if n := register("C", "C", "inc-1").(Node); n.Incarnation != "inc-1" {
		t.Fatalf("re-registration by the same data dir = %+v", n)
	}
	if n := register("C", "C", "").(Node); n.Incarnation != "inc-1" {
		t.Fatalf("a registration without incarnation dropped it: %+v", n)
	}
	blank := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: "C", Id: "C"}).(Node)
	if blank.GRPCAddress != "grpc-C" || blank.RaftAddress != "raft-C" {
		t.Fatalf("a registration without addresses erased the known ones: %+v", blank)
	}
	if err, _ := register("C", "C", "inc-2").(error); !errors.Is(err, ErrTagReincarnated) {
		t.Fatalf("a wiped data dir coming back as C = %v, want ErrTagReincarnated", err)
	}
	if f.Nodes()[0].Incarnation != "inc-1" {
		t.Fatal("the refused registration changed the registry")
	}
	mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "Q"})
	if got := f.RetiredTags(); len(got) != 1 || got[0] != "Q" {
		t.Fatalf("removing a never-registered static peer did not retire its tag: %v", got)
	}
}

// An add for a live tag, or with another node's address, must change
// nothing; the node itself may still move its addresses.
func TestRegisterRefusesWhatIsInUse(t *testing.T) {
	f := New()
	mustApply(t, f, RegisterNodeCommand, registerCommand("B", "B-1", "inc-b"))
	mustApply(t, f, RegisterNodeCommand, registerCommand("C", "C-1", "inc-c"))
	before := f.Nodes()
	for name, r := range map[string]*raftv1.RegisterNode{
		"live tag, other id":             {Tag: "B", RaftAddress: "elsewhere:1", GrpcAddress: "elsewhere:2"},
		"live tag, same id, no inc":      {Tag: "B", Id: "B-1", RaftAddress: "elsewhere:1", GrpcAddress: "elsewhere:2"},
		"free tag, B's raft address":     {Tag: "D", Incarnation: "inc-d", RaftAddress: "raft-B", GrpcAddress: "new:2"},
		"free tag, C's gRPC address":     {Tag: "D", Incarnation: "inc-d", RaftAddress: "new:1", GrpcAddress: "grpc-C"},
		"assigned tag, B's raft address": {Incarnation: "inc-e", RaftAddress: "raft-B", GrpcAddress: "new:2"},
	} {
		err, _ := mustApply(t, f, RegisterNodeCommand, r).(error)
		if !errors.Is(err, ErrTagInUse) && !errors.Is(err, ErrAddressInUse) {
			t.Errorf("%s: %v, want ErrTagInUse or ErrAddressInUse", name, err)
		}
		if got := f.Nodes(); !slices.Equal(got, before) {
			t.Fatalf("%s: the refused registration changed the registry: %+v", name, got)
		}
	}
	moved := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: "B", Id: "B-1", Incarnation: "inc-b", RaftAddress: "moved:1", GrpcAddress: "moved:2"})
	if n, ok := moved.(Node); !ok || n.RaftAddress != "moved:1" {
		t.Fatalf("the node itself moving its addresses = %v", moved)
	}
}

// A joining node that lost the answer to its first AddNode sends the same tagless request
// again: it must get the tag it was given, not the next one (which its own first registration
// would then refuse for holding its addresses).
func TestRetriedTaglessJoinKeepsItsTag(t *testing.T) {
	f := New()
	mustApply(t, f, RegisterNodeCommand, registerCommand("A", "A-1", "inc-a"))
	join := &raftv1.RegisterNode{Incarnation: "inc-d", RaftAddress: "raft-d", GrpcAddress: "grpc-d"}
	first, ok := mustApply(t, f, RegisterNodeCommand, join).(Node)
	if !ok || first.Tag != "B" || first.ID != docid.MemberID("B", "inc-d") {
		t.Fatalf("first join = %+v, want tag B with id %s", first, docid.MemberID("B", "inc-d"))
	}
	again := mustApply(t, f, RegisterNodeCommand, join)
	if again != first {
		t.Fatalf("retried join = %v, want the first answer %+v", again, first)
	}
	if n := f.Nodes(); len(n) != 2 {
		t.Fatalf("registry after the retried join: %+v, want A and B only", n)
	}
	other, ok := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Incarnation: "inc-e", RaftAddress: "raft-e", GrpcAddress: "grpc-e"}).(Node)
	if !ok || other.Tag != "C" {
		t.Fatalf("another node's join = %+v, want the next tag C", other)
	}
}

// A refusal names the holder, so the operator knows what is in the way.
func TestRegisterRefusalNamesTheHolder(t *testing.T) {
	f := New()
	mustApply(t, f, RegisterNodeCommand, registerCommand("B", "B-1", "inc-b"))
	for _, c := range []struct {
		r    *raftv1.RegisterNode
		want string
	}{
		{&raftv1.RegisterNode{Tag: "B", RaftAddress: "x:1", GrpcAddress: "x:2"}, "node B (raft id B-1) holds it"},
		{&raftv1.RegisterNode{Tag: "B", Id: "B-1", RaftAddress: "x:1", GrpcAddress: "x:2"}, "node B is registered at raft raft-B, gRPC grpc-B"},
		{&raftv1.RegisterNode{Tag: "D", RaftAddress: "raft-B", GrpcAddress: "x:2"}, "node B has raft address raft-B"},
	} {
		err, _ := mustApply(t, f, RegisterNodeCommand, c.r).(error)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RegisterNode(%v) = %v, want a refusal saying %q", c.r, err, c.want)
		}
	}
}

func registerCommand(tag, id, inc string) *raftv1.RegisterNode {
	return &raftv1.RegisterNode{Tag: tag, Id: id, Incarnation: inc, RaftAddress: "raft-" + tag, GrpcAddress: "grpc-" + tag}
}

func TestCommandErrors(t *testing.T) {
	if _, err := Encode(SeedIdentityCommand, &raftv1.HiLoReturn{}); err == nil {
		t.Fatal("Encode paired the seed command with a HiLoReturn payload")
	}
	if _, err := Encode(99, &raftv1.HiLoReturn{}); !errors.Is(err, ErrUnknownCommand) {
		t.Fatalf("Encode of an unknown command = %v", err)
	}
	f := New()
	if err, _ := f.Apply(&raft.Log{Type: raft.LogCommand, Data: []byte{byte(SeedIdentityCommand), 0xff}}).(error); !errors.Is(err, ErrMalformedCommand) {
		t.Fatalf("malformed command = %v", err)
	}
	if r := f.Apply(&raft.Log{Type: raft.LogConfiguration}); r != nil {
		t.Fatalf("configuration entry answered %v", r)
	}
}

// An entry of a command type this build does not know halts the FSM: it
// must not answer with an error and go on, diverging from newer replicas that applied it.
func TestUnknownCommandHalts(t *testing.T) {
	f := New()
	type halt struct {
		index uint64
		t     CommandType
	}
	var halts []halt
	f.OnHalt(func(h Halt) { halts = append(halts, halt{h.Index, h.Command}) })
	seed := func(index uint64, value int64) *raft.Log {
		data, err := Encode(SeedIdentityCommand, &raftv1.SeedIdentity{Name: "x", Value: value})
		if err != nil {
			t.Fatal(err)
		}
		return &raft.Log{Index: index, Type: raft.LogCommand, Data: data}
	}
	f.Apply(seed(1, 5))

	// An unknown type with the Ignorable bit is skipped, and later entries apply.
	if r := f.Apply(&raft.Log{Index: 2, Type: raft.LogCommand, Data: []byte{byte(Ignorable | 0x7f), 1, 2}}); r != nil {
		t.Fatalf("ignorable unknown command answered %v", r)
	}
	f.Apply(seed(3, 6))
	if f.Identity("", "x") != 6 || f.Halted() {
		t.Fatalf("after an ignorable entry: x = %d, halted %v; want 6, false", f.Identity("", "x"), f.Halted())
	}

	// One without it halts: nothing later is applied, no snapshot is taken.
	if err, _ := f.Apply(&raft.Log{Index: 4, Type: raft.LogCommand, Data: []byte{0x7f, 1}}).(error); !errors.Is(err, ErrHalted) || !errors.Is(err, ErrUnknownCommand) {
		t.Fatalf("unknown command = %v, want ErrHalted and ErrUnknownCommand", err)
	}
	for i, r := range f.ApplyBatch([]*raft.Log{seed(5, 9), seed(6, 10)}) {
		if err, _ := r.(error); !errors.Is(err, ErrHalted) {
			t.Errorf("entry %d after the halt answered %v, want ErrHalted", 5+i, r)
		}
	}
	if f.Identity("", "x") != 6 {
		t.Errorf("entries after the halt were applied: x = %d, want 6", f.Identity("", "x"))
	}
	if _, err := f.Snapshot(); !errors.Is(err, ErrHalted) {
		t.Errorf("Snapshot of a halted FSM = %v, want ErrHalted", err)
	}
	if len(halts) != 1 || halts[0] != (halt{4, 0x7f}) {
		t.Errorf("halt callbacks %v, want one at index 4 for type 0x7f", halts)
	}
}

// The separator is a cluster-wide setting: the first node to register with one sets it, a
// node with another is refused and changes nothing, and a snapshot keeps it.
func TestSeparatorIsTheClusters(t *testing.T) {
	f := New()
	withSep := func(tag, sep string) *raftv1.RegisterNode {
		r := registerCommand(tag, "", "inc-"+tag)
		r.Separator = sep
		return r
	}
	mustApply(t, f, RegisterNodeCommand, registerCommand("O", "", "")) // an operator's add names none
	if f.Separator() != "" {
		t.Fatalf("separator set by a registration without one: %q", f.Separator())
	}
	mustApply(t, f, RegisterNodeCommand, withSep("A", "/"))
	before := f.Nodes()
	if err, _ := mustApply(t, f, RegisterNodeCommand, withSep("B", "-")).(error); !errors.Is(err, ErrSeparatorDiffers) {
		t.Fatalf("a node with separator - = %v, want ErrSeparatorDiffers", err)
	}
	if got := f.Nodes(); !slices.Equal(got, before) || f.Separator() != "/" {
		t.Fatalf("the refused registration changed the FSM: %+v, separator %q", got, f.Separator())
	}
	mustApply(t, f, RegisterNodeCommand, withSep("B", "/"))

	if restored := mustRestore(t, snapshotBytes(t, f)); restored.Separator() != "/" {
		t.Errorf("restored separator %q, want /", restored.Separator())
	}
}
