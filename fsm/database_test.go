package fsm

import (
	"bytes"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func increment(t *testing.T, f *FSM, db, name string, count int64, requestID string) IdentityRange {
	t.Helper()
	res, ok := mustApply(t, f, IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{
		{Database: db, Name: name, Count: count, RequestId: requestID},
	}}).(IdentityBatchResult)
	if !ok || len(res.Ranges) != 1 {
		t.Fatalf("identity batch answered %#v", res)
	}
	return res.Ranges[0]
}

// Two databases count the same names on their own, and the same request id in each names two
// requests.
func TestDatabasesCountOnTheirOwn(t *testing.T) {
	f := New()
	if err, _ := mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "Billing"}).(error); err != nil {
		t.Fatal(err)
	}
	if r := increment(t, f, "billing", "orders", 5, "r1"); r.Err != nil || r.First != 1 || r.Last != 5 {
		t.Fatalf("billing orders: %+v, want 1–5", r)
	}
	if r := increment(t, f, "", "orders", 2, "r1"); r.Err != nil || r.First != 1 || r.Last != 2 {
		t.Fatalf("default orders with billing's request id: %+v, want 1–2 (its own request)", r)
	}
	if r := increment(t, f, "BILLING", "orders", 5, "r1"); r.First != 1 || r.Last != 5 {
		t.Fatalf("billing's retry: %+v, want its answer 1–5 again", r)
	}
	if r := increment(t, f, "shop", "orders", 1, ""); !errors.Is(r.Err, ErrDatabaseNotFound) {
		t.Fatalf("an unknown database: %+v, want ErrDatabaseNotFound", r)
	}
	if got := mustReserve(t, f, &raftv1.HiLoReserve{Database: "billing", Tag: "carts", Capacity: 32}); got.Low != 1 {
		t.Fatalf("billing's first HiLo range %+v", got)
	}
	if f.Identity("billing", "orders") != 5 || f.Identity("", "orders") != 2 || f.HiLoMax("", "carts") != 0 {
		t.Fatal("the databases share counters")
	}
	page, _, err := f.Identities("billing", "", "", 10)
	if err != nil || !slices.Equal(page, []Identity{{Database: "billing", Name: "orders", Value: 5}}) {
		t.Fatalf("billing's identities %v, %v", page, err)
	}
	var names []string
	for _, d := range f.Databases() {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"billing", DefaultDatabase}) {
		t.Fatalf("databases %v", names)
	}
	restored := mustRestore(t, snapshotBytes(t, f))
	if !bytes.Equal(snapshotBytes(t, restored), snapshotBytes(t, f)) || restored.Identity("billing", "orders") != 5 {
		t.Fatal("a snapshot with two databases does not restore exactly")
	}
}

// A deleted database refuses calls; created again, it goes on after the values it handed out.
func TestADeletedDatabaseKeepsItsFloors(t *testing.T) {
	f := New()
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
	increment(t, f, "billing", "orders", 3, "")
	for _, tc := range []struct {
		cmd  *raftv1.DeleteDatabase
		want error
	}{
		{&raftv1.DeleteDatabase{Name: "billing"}, ErrDatabaseNotEmpty},
		{&raftv1.DeleteDatabase{Name: ""}, ErrDefaultDatabase},
		{&raftv1.DeleteDatabase{Name: "shop"}, ErrDatabaseNotFound},
		{&raftv1.DeleteDatabase{Name: "billing", Force: true}, nil},
	} {
		if err, _ := mustApply(t, f, DeleteDatabaseCommand, tc.cmd).(error); !errors.Is(err, tc.want) {
			t.Fatalf("delete %v: %v, want %v", tc.cmd, err, tc.want)
		}
	}
	if r := increment(t, f, "billing", "orders", 1, ""); !errors.Is(r.Err, ErrDatabaseNotFound) {
		t.Fatalf("a deleted database answered %+v", r)
	}
	if err, _ := mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"}).(error); err != nil {
		t.Fatal(err)
	}
	if r := increment(t, f, "billing", "orders", 1, ""); r.First != 4 {
		t.Fatalf("billing created again: orders %+v, want 4 (after the 3 handed out before)", r)
	}
	if err, _ := mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"}).(error); !errors.Is(err, ErrDatabaseExists) {
		t.Fatalf("creating a live database: %v", err)
	}
	if err, _ := mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "bad name"}).(error); err == nil {
		t.Fatal("a database name with a space was accepted")
	}
}

// testdata/pre-databases.snapshot was written by the build before databases (commit
// 2c8ec7f's fsm, by applying the commands below). Restored now, every counter and remembered
// answer is the default database's, and its snapshot is the same bytes.
func TestASnapshotFromBeforeDatabasesIsTheDefaultDatabase(t *testing.T) {
	old, err := os.ReadFile("testdata/pre-databases.snapshot")
	if err != nil {
		t.Fatal(err)
	}
	f := mustRestore(t, old)
	if f.Identity("", "orders") != 41 || f.Identity(DefaultDatabase, "users") != 7 || f.Identity("", "invoices") != 654 || f.HiLoMax("", "carts") != 32 {
		t.Fatalf("counters after the upgrade: orders %d users %d invoices %d carts %d; want 41 7 654 32",
			f.Identity("", "orders"), f.Identity("", "users"), f.Identity("", "invoices"), f.HiLoMax("", "carts"))
	}
	if r := increment(t, f, "", "users", 7, "req-users-1"); r.First != 1 || r.Last != 7 {
		t.Fatalf("a retry of a request answered before the upgrade: %+v, want its answer 1–7", r)
	}
	if got := mustReserve(t, f, &raftv1.HiLoReserve{Database: DefaultDatabase, Tag: "carts", Capacity: 32, RequestId: "req-carts-1"}); got.Low != 1 || got.High != 32 {
		t.Fatalf("a HiLo retry from before the upgrade: %+v, want 1–32", got)
	}
	if !bytes.Equal(snapshotBytes(t, mustRestore(t, old)), old) {
		t.Fatal("the upgraded state does not write the snapshot it was restored from")
	}
}

// A backup of one database holds its counters and nothing of the cluster; restored elsewhere
// it raises that database's floors, creating it.
func TestABackupOfOneDatabase(t *testing.T) {
	f := New()
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
	increment(t, f, "billing", "orders", 7, "")
	increment(t, f, "", "orders", 3, "")
	mustApply(t, f, RegisterNodeCommand, registerCommand("A", "A-1", "i1"))
	var buf bytes.Buffer
	if err := f.WriteDatabaseBackup(&buf, "Billing", IssueRates{}); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBackup(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Identities, []Identity{{Database: "billing", Name: "orders", Value: 7}}) || len(b.Tags) != 0 || len(b.HiLo) != 0 {
		t.Fatalf("billing's backup: %+v; want billing's orders=7 and no tags", b)
	}
	g := New()
	for _, cmd := range b.RaiseFloorCommands(10) {
		mustApply(t, g, RaiseFloorCommand, cmd)
	}
	if r := increment(t, g, "billing", "orders", 1, ""); r.First != 8 {
		t.Fatalf("orders in billing after the restore: %+v, want 8", r)
	}
	if g.Identity("", "orders") != 0 {
		t.Fatal("the restore touched the default database")
	}
	if err := f.WriteDatabaseBackup(&buf, "shop", IssueRates{}); !errors.Is(err, ErrDatabaseNotFound) {
		t.Fatalf("a backup of an unknown database: %v", err)
	}
}

// A database's limit on identity counters refuses a new counter past it, and nothing else.
func TestADatabaseLimitsItsCounters(t *testing.T) {
	f := New()
	if err, _ := mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "small", MaxIdentities: -1}).(error); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("a negative limit: %v", err)
	}
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "small", MaxIdentities: 2, MaxCallsPerSecond: 50})
	increment(t, f, "small", "a", 1, "")
	increment(t, f, "small", "b", 1, "")
	if r := increment(t, f, "small", "c", 1, ""); !errors.Is(r.Err, ErrLimitReached) {
		t.Fatalf("a third counter: %+v, want ErrLimitReached", r)
	}
	if err, _ := mustApply(t, f, SeedIdentityCommand, &raftv1.SeedIdentity{Database: "small", Name: "d", Value: 5}).(error); !errors.Is(err, ErrLimitReached) {
		t.Fatalf("seeding a third counter: %v", err)
	}
	if r := increment(t, f, "small", "A", 1, ""); r.Err != nil || r.First != 2 {
		t.Fatalf("an existing counter past the limit: %+v", r)
	}
	restored := mustRestore(t, snapshotBytes(t, f))
	if r := increment(t, restored, "small", "c", 1, ""); !errors.Is(r.Err, ErrLimitReached) || restored.CallsPerSecond("small") != 50 {
		t.Fatalf("the limits after a snapshot: %+v, %v calls/s", r, restored.CallsPerSecond("small"))
	}
}

// A database's limits are refused by the field that breaks the rule, by the server before Raft
// and by the FSM again.
func TestDatabaseLimitsNameTheirField(t *testing.T) {
	for _, tc := range []struct {
		identities, claims int64
		calls              float64
		field              string
	}{
		{-1, 0, 0, "max_identities"},
		{0, math.MinInt64, 0, "max_claims"},
		{0, 0, math.NaN(), "max_calls_per_second"},
		{0, 0, math.Inf(1), "max_calls_per_second"},
		{0, 0, -0.5, "max_calls_per_second"},
	} {
		err := ValidateLimits(tc.identities, tc.claims, tc.calls)
		if !errors.Is(err, ErrInvalidCount) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("limits %d, %d, %v: %v; want ErrInvalidCount naming %s", tc.identities, tc.claims, tc.calls, err, tc.field)
		}
		applied, _ := mustApply(t, New(), CreateDatabaseCommand, &raftv1.CreateDatabase{
			Name: "x", MaxIdentities: tc.identities, MaxClaims: tc.claims, MaxCallsPerSecond: tc.calls,
		}).(error)
		if applied == nil || applied.Error() != err.Error() {
			t.Errorf("the FSM answered %v, the check %v", applied, err)
		}
	}
	if err := ValidateLimits(math.MaxInt64, math.MaxInt64, math.MaxFloat64); err != nil {
		t.Errorf("the largest limits: %v", err)
	}
}
