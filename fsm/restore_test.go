package fsm

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// oldCluster is an FSM with some history: identities, HiLo ranges (one partly returned), three
// registered nodes and a removed one.
func oldCluster(t *testing.T) *FSM {
	t.Helper()
	f := New()
	mustIdentity(t, f, "Users", 41, "")
	mustIdentity(t, f, "orders", 7, "req-1")
	mustSeed(t, f, "invoices", 654, false)
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "Carts", Capacity: 32})
	r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "carts", Capacity: 64})
	mustApply(t, f, HiLoReturnCommand, &raftv1.HiLoReturn{Tag: "carts", End: r.High, Last: r.Low + 9})
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "items", Capacity: 1024})
	for _, tag := range []string{"A", "B", "C", "D"} {
		if _, ok := mustApply(t, f, RegisterNodeCommand, registerCommand(tag, tag, "inc-"+tag)).(Node); !ok {
			t.Fatalf("register %s", tag)
		}
	}
	mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "D"})
	return f
}

func backupOf(t *testing.T, f *FSM) *Backup {
	t.Helper()
	var buf bytes.Buffer
	if err := f.WriteBackup(&buf, IssueRates{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), persisted(t, f)) {
		t.Fatal("a backup is not byte for byte the FSM's snapshot")
	}
	b, err := ReadBackup(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func raiseFloor(t *testing.T, f *FSM, b *Backup, perCommand int) (RaiseFloorResult, error) {
	t.Helper()
	var total RaiseFloorResult
	for _, cmd := range b.RaiseFloorCommands(perCommand) {
		switch res := mustApply(t, f, RaiseFloorCommand, cmd).(type) {
		case RaiseFloorResult:
			total.IdentitiesRaised += res.IdentitiesRaised
			total.HiLoRaised += res.HiLoRaised
			total.TagsRetired += res.TagsRetired
			total.ClaimsRestored += res.ClaimsRestored
		case error:
			return total, res
		default:
			t.Fatalf("RaiseFloor answered %#v", res)
		}
	}
	return total, nil
}

func TestBackupHoldsFloorsAndEveryTagEverUsed(t *testing.T) {
	b := backupOf(t, oldCluster(t))
	if want := []Identity{{DefaultDatabase, "invoices", 654}, {DefaultDatabase, "orders", 7}, {DefaultDatabase, "Users", 41}}; !slices.Equal(b.Identities, want) {
		t.Errorf("identities %v, want %v", b.Identities, want)
	}
	// carts: 32, then 33..96 of which 43..96 were returned: Max 42.
	if want := []HiLoMax{{DefaultDatabase, "carts", 42}, {DefaultDatabase, "items", 1024}}; !slices.Equal(b.HiLo, want) {
		t.Errorf("hilo %v, want %v", b.HiLo, want)
	}
	if want := []string{"A", "B", "C", "D"}; !slices.Equal(b.Tags, want) {
		t.Errorf("tags %v, want %v", b.Tags, want)
	}
}

func TestRaiseFloorContinuesAboveTheBackup(t *testing.T) {
	b := backupOf(t, oldCluster(t))
	f := New()
	for _, tag := range []string{"E", "F"} {
		mustApply(t, f, RegisterNodeCommand, registerCommand(tag, tag, "new-"+tag))
	}
	mustIdentity(t, f, "users", 3, "") // the new cluster already handed out users 1..3
	res, err := raiseFloor(t, f, b, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if res != (RaiseFloorResult{IdentitiesRaised: 3, HiLoRaised: 2, TagsRetired: 4}) {
		t.Errorf("result %+v", res)
	}
	if r := mustIdentity(t, f, "USERS", 1, ""); r.First != 42 {
		t.Errorf("next users identity %d, want 42", r.First)
	}
	if r := mustIdentity(t, f, "invoices", 1, ""); r.First != 655 {
		t.Errorf("next invoices identity %d, want 655", r.First)
	}
	if r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "Items", Capacity: 32}); r.Low != 1025 {
		t.Errorf("next items range starts at %d, want 1025", r.Low)
	}
	// An old client returning the tail of the old cluster's newest range changes nothing.
	if got := mustApply(t, f, HiLoReturnCommand, &raftv1.HiLoReturn{Tag: "carts", End: 42, Last: 35}); got != int64(42) {
		t.Errorf("return of an old range answered %v, want Max 42 unchanged", got)
	}
	for _, tag := range []string{"A", "B", "C", "D"} {
		if err, _ := mustApply(t, f, RegisterNodeCommand, registerCommand(tag, tag, "x")).(error); !errors.Is(err, ErrTagRetired) {
			t.Errorf("registering the old cluster's tag %s: %v, want ErrTagRetired", tag, err)
		}
	}
	if n, ok := mustApply(t, f, RegisterNodeCommand, registerCommand("", "new", "x")).(Node); !ok || n.Tag != "G" {
		t.Errorf("next assigned tag %+v, want G", n)
	}
}

func TestRaiseFloorNeverLowersAndIsIdempotent(t *testing.T) {
	b := backupOf(t, oldCluster(t))
	f := New()
	mustSeed(t, f, "users", 1000, false)
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "items", Capacity: 5000})
	res, err := raiseFloor(t, f, b, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res.IdentitiesRaised != 2 || res.HiLoRaised != 1 {
		t.Errorf("result %+v: users and items were already higher", res)
	}
	if f.Identity("", "users") != 1000 || f.HiLoMax("", "items") != 5000 {
		t.Errorf("a restore lowered a counter: users %d, items %d", f.Identity("", "users"), f.HiLoMax("", "items"))
	}
	before := snapshotBytes(t, f)
	if res, err := raiseFloor(t, f, b, 1000); err != nil || res != (RaiseFloorResult{}) {
		t.Errorf("second restore: %+v, %v; want nothing raised", res, err)
	}
	if !bytes.Equal(before, snapshotBytes(t, f)) {
		t.Error("a second restore of the same backup changed the state")
	}
}

func TestRaiseFloorSplitMatchesWhole(t *testing.T) {
	b := backupOf(t, oldCluster(t))
	if n := len(b.RaiseFloorCommands(2)); n != 5 { // 4 tags + 3 identities + 2 hilo = 9 records
		t.Errorf("9 records in commands of 2: %d commands", n)
	}
	whole, split := New(), New()
	if _, err := raiseFloor(t, whole, b, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := raiseFloor(t, split, b, 2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(snapshotBytes(t, whole), snapshotBytes(t, split)) {
		t.Error("a restore in several commands differs from one in a single command")
	}
	if got := (&Backup{}).RaiseFloorCommands(10); len(got) != 0 {
		t.Errorf("an empty backup gives %d commands", len(got))
	}
}

func TestRaiseFloorRefusesATagInUseAndChangesNothing(t *testing.T) {
	b := backupOf(t, oldCluster(t))
	f := New()
	mustApply(t, f, RegisterNodeCommand, registerCommand("B", "B", "new-B"))
	before := snapshotBytes(t, f)
	_, err := raiseFloor(t, f, b, 1000)
	if !errors.Is(err, ErrRestoreTagInUse) {
		t.Fatalf("restore over a cluster using tag B: %v, want ErrRestoreTagInUse", err)
	}
	if !bytes.Equal(before, snapshotBytes(t, f)) {
		t.Error("a refused restore changed the state")
	}
}

func TestRaiseFloorRefusesBadRecords(t *testing.T) {
	for _, cmd := range []*raftv1.RaiseFloor{
		{Identities: []*raftv1.IdentityRecord{{Name: "x", Value: 1}, {Name: "y", Value: -1}}},
		{Identities: []*raftv1.IdentityRecord{{Name: "", Value: 1}}},
		{Hilo: []*raftv1.HiLoRecord{{Tag: "t", Max: -5}}},
		{RetiredTags: []string{"A", "lower"}},
		{RetiredTags: []string{"RAFT"}},
	} {
		f := New()
		before := snapshotBytes(t, f)
		if _, ok := mustApply(t, f, RaiseFloorCommand, cmd).(error); !ok {
			t.Errorf("RaiseFloor %v was accepted", cmd)
		}
		if !bytes.Equal(before, snapshotBytes(t, f)) {
			t.Errorf("refused RaiseFloor %v changed the state", cmd)
		}
	}
}

func TestReadBackupRejectsWhatIsNotABackup(t *testing.T) {
	if _, err := ReadBackup(bytes.NewReader([]byte("hello, world\n"))); err == nil {
		t.Error("a text file was read as a backup")
	}
	var buf bytes.Buffer
	if err := oldCluster(t).WriteBackup(&buf, IssueRates{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBackup(bytes.NewReader(buf.Bytes()[:buf.Len()-3])); err == nil {
		t.Error("a truncated backup was accepted")
	}
}
