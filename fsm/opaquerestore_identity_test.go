package fsm

import (
	"fmt"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// raiseTo sets counters of database by a RaiseFloor, as a restore does: the quickest way to a
// counter at the bound of plain IDs.
func raiseTo(t *testing.T, f *FSM, database string, counters map[string]int64) {
	t.Helper()
	cmd := &raftv1.RaiseFloor{}
	for name, v := range counters {
		cmd.Identities = append(cmd.Identities, &raftv1.IdentityRecord{Database: database, Name: name, Value: v})
	}
	if _, ok := mustApply(t, f, RaiseFloorCommand, cmd).(RaiseFloorResult); !ok {
		t.Fatalf("raising %v of %q refused", counters, database)
	}
}

// A backup whose collection is opaque cannot come into a cluster where that collection is
// plain with its counter at the bound: its plain IDs may have 13 digits. The check before the
// restore refuses it, naming the collection, the database and the value, as MakeOpaque does
// when it applies; into a cluster that lacks the counter, the same backup restores.
func TestRestoreOfOpaqueCollectionIntoPlainCounterAtTheBoundIsRefused(t *testing.T) {
	old := New()
	mustMakeOpaque(t, old, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA, Restore: true})
	raiseTo(t, old, "shop", map[string]int64{"orders": 50})
	b := backupOf(t, old)

	here := New()
	raiseTo(t, here, "shop", map[string]int64{"ORDERS": OpaquePlainLimit}) // the fold makes it the same collection
	want := fmt.Sprintf(`collection "orders" of database "shop" has its identity counter at %d`, int64(OpaquePlainLimit))
	wantErr(t, here.CheckOpaqueRestore(b), ErrOpaqueWouldCollide, want)
	wantErr(t, restoreBackup(t, here, b), ErrOpaqueWouldCollide, want)
	if s, ok := here.Opaque("shop"); ok {
		t.Fatalf("a refused restore made shop opaque: %+v", s)
	}

	plain := New()
	if err := plain.CheckOpaqueRestore(b); err != nil {
		t.Fatalf("CheckOpaqueRestore into a plain cluster: %v", err)
	}
	if err := restoreBackup(t, plain, b); err != nil {
		t.Fatalf("restore into a plain cluster: %v", err)
	}
	if s, ok := plain.Opaque("shop"); !ok || !s.Has("Orders") {
		t.Fatalf("restored setting %+v", s)
	}
}

// A backup whose collection is plain with its counter at the bound may hold plain IDs of 13
// digits: it cannot come into a cluster where that collection is opaque. The check before the
// restore and the RaiseFloor command both refuse it, the command whole (the counter before it
// in the same command stays where it was); into a plain cluster the same backup restores, and
// a plain counter below the bound comes into the opaque collection.
func TestRestoreOfPlainCounterAtTheBoundIntoOpaqueCollectionIsRefused(t *testing.T) {
	old := New()
	raiseTo(t, old, "shop", map[string]int64{"invoices": 50, "ORDERS": OpaquePlainLimit})
	b := backupOf(t, old)

	here := New()
	mustMakeOpaque(t, here, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA, Restore: true})
	want := fmt.Sprintf(`collection "ORDERS" of database "shop" is opaque here, and the backup's cluster kept it plain up to %d`, int64(OpaquePlainLimit))
	wantErr(t, here.CheckOpaqueRestore(b), ErrOpaqueWouldCollide, want)
	cmds := b.RaiseFloorCommands(10)
	if len(cmds) != 1 || len(cmds[0].GetIdentities()) != 2 || len(cmds[0].GetOpaqueIdentities()) != 0 {
		t.Fatalf("a plain backup's commands %v", cmds)
	}
	wantErr(t, mustApply(t, here, RaiseFloorCommand, cmds[0]), ErrOpaqueWouldCollide, want)
	if v, o := here.Identity("shop", "invoices"), here.Identity("shop", "orders"); v != 0 || o != 0 {
		t.Fatalf("a refused command raised invoices to %d, orders to %d", v, o)
	}

	plain := New()
	if err := plain.CheckOpaqueRestore(b); err != nil {
		t.Fatalf("CheckOpaqueRestore into a plain cluster: %v", err)
	}
	if err := restoreBackup(t, plain, b); err != nil {
		t.Fatalf("restore into a plain cluster: %v", err)
	}
	if v := plain.Identity("shop", "orders"); v != OpaquePlainLimit {
		t.Fatalf("orders restored at %d", v)
	}

	below := New()
	raiseTo(t, below, "shop", map[string]int64{"orders": OpaquePlainLimit - 1})
	bb := backupOf(t, below)
	if err := here.CheckOpaqueRestore(bb); err != nil {
		t.Fatalf("CheckOpaqueRestore of a counter below the bound: %v", err)
	}
	if err := restoreBackup(t, here, bb); err != nil {
		t.Fatalf("restore of a counter below the bound: %v", err)
	}
	if v := here.Identity("shop", "orders"); v != OpaquePlainLimit-1 {
		t.Fatalf("orders restored at %d", v)
	}
}

// A collection opaque in the backup's cluster too may have its counter past the bound (it
// turned opaque below it and gave forms since): the command names it, and it restores into
// the cluster where the collection is opaque under the same key.
func TestRestoreOfOpaqueCounterPastTheBoundIntoOpaqueCollection(t *testing.T) {
	old := New()
	mustMakeOpaque(t, old, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA, Restore: true})
	// A counter past the bound of a collection opaque here comes only as an opaque one.
	raise := &raftv1.RaiseFloor{Identities: []*raftv1.IdentityRecord{{Database: "shop", Name: "invoices", Value: 50}, {Database: "shop", Name: "Orders", Value: OpaquePlainLimit + 5}}}
	wantErr(t, mustApply(t, old, RaiseFloorCommand, raise), ErrOpaqueWouldCollide, `collection "Orders" of database "shop" is opaque here`)
	raise.OpaqueIdentities = []uint32{1}
	if _, ok := mustApply(t, old, RaiseFloorCommand, raise).(RaiseFloorResult); !ok {
		t.Fatal("raising an opaque counter past the bound refused")
	}
	b := backupOf(t, old)
	for _, cmd := range b.RaiseFloorCommands(1) {
		opaqueHere := len(cmd.GetIdentities()) == 1 && cmd.GetIdentities()[0].GetName() == "Orders"
		if got := len(cmd.GetOpaqueIdentities()) == 1 && cmd.GetOpaqueIdentities()[0] == 0; got != opaqueHere {
			t.Fatalf("command %v names opaque identities %v", cmd.GetIdentities(), cmd.GetOpaqueIdentities())
		}
	}
	here := New()
	mustMakeOpaque(t, here, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA, Restore: true})
	if err := here.CheckOpaqueRestore(b); err != nil {
		t.Fatalf("CheckOpaqueRestore: %v", err)
	}
	if err := restoreBackup(t, here, b); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if v := here.Identity("shop", "orders"); v != OpaquePlainLimit+5 {
		t.Fatalf("orders restored at %d", v)
	}
	// A command naming a position it lacks is refused whole.
	bad := &raftv1.RaiseFloor{Identities: []*raftv1.IdentityRecord{{Database: "shop", Name: "x", Value: 1}}, OpaqueIdentities: []uint32{1}}
	wantErr(t, mustApply(t, here, RaiseFloorCommand, bad), ErrInvalidOpaque, "opaque identity 1")
}
