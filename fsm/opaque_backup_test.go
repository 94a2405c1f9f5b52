package fsm

import (
	"bytes"
	"slices"
	"testing"

	"github.com/idnode/idnode/opaque"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// restoreBackup applies a backup's commands in the order a restore proposes them: the opaque
// settings, then the floors. It returns the first refusal.
func restoreBackup(t *testing.T, f *FSM, b *Backup) error {
	t.Helper()
	for _, cmd := range b.OpaqueCommands() {
		if err, ok := mustApply(t, f, MakeOpaqueCommand, cmd).(error); ok {
			return err
		}
	}
	_, err := raiseFloor(t, f, b, 3)
	return err
}

// formsOf is what the database's setting makes of values in the collection.
func formsOf(t *testing.T, f *FSM, database, collection string, values ...int64) []string {
	t.Helper()
	s, ok := f.Opaque(database)
	if !ok || !s.Has(collection) {
		t.Fatalf("%s of %s is not opaque: %+v", collection, database, s)
	}
	c, err := opaque.NewIdentityCodec(s.Key, s.Fold(collection))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range values {
		form, err := c.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, form)
	}
	return out
}

// A restore into an empty cluster keeps each database's key and setting: the same value gives
// the same form, the counter goes on above the backup's, and a claimed form stays skipped.
func TestRestoreKeepsThePermutation(t *testing.T) {
	old := New()
	mustApply(t, old, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustMakeOpaque(t, old, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"Orders"}, Numeric: true, Key: opaqueKeyA})
	issue := func(f *FSM, count int64) IdentityRange {
		return mustApply(t, f, IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Database: "shop", Name: "orders", Count: count}}}).(IdentityBatchResult).Ranges[0]
	}
	issue(old, 5)
	if err := claimIDs(t, old, &raftv1.Claim{Database: "shop", Ids: []string{"orders/" + formsOf(t, old, "shop", "orders", 7)[0]}}); err != nil {
		t.Fatal(err)
	}
	b := backupOf(t, old)
	if !b.HoldsKeys() || len(b.Opaque) != 1 || b.Opaque[0].GetDatabase() != "shop" {
		t.Fatalf("backup's opaque settings: %v", b.Opaque)
	}
	fresh := New()
	if err := restoreBackup(t, fresh, b); err != nil {
		t.Fatalf("restore into an empty cluster: %v", err)
	}
	s, ok := fresh.Opaque("shop")
	if !ok || !bytes.Equal(s.Key, opaqueKeyA) || !slices.Equal(s.Collections, []string{"orders"}) || !s.Numeric {
		t.Fatalf("restored setting %+v, %v", s, ok)
	}
	if before, after := formsOf(t, old, "shop", "orders", 1, 5, 6), formsOf(t, fresh, "shop", "orders", 1, 5, 6); !slices.Equal(before, after) {
		t.Fatalf("forms of 1, 5, 6 before the restore %v, after %v", before, after)
	}
	if r := issue(fresh, 3); r.First != 6 || r.Last != 9 || !slices.Equal(r.Skipped, []int64{7}) {
		t.Fatalf("orders| x3 after the restore = %+v; want 6..9 without the claimed 7", r)
	}
	// Restoring again changes nothing.
	if err := restoreBackup(t, fresh, b); err != nil {
		t.Fatalf("a second restore: %v", err)
	}
}

// A cluster whose database holds another key refuses the restore, naming the database, before
// any floor moved.
func TestRestoreWithAnotherKeyIsRefused(t *testing.T) {
	old := New()
	mustApply(t, old, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustMakeOpaque(t, old, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA})
	mustApply(t, old, IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Database: "shop", Name: "orders", Count: 5}}})
	b := backupOf(t, old)
	other := New()
	mustApply(t, other, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustMakeOpaque(t, other, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyB})
	wantErr(t, restoreBackup(t, other, b), ErrOpaqueKeyDiffers, `database "shop"`)
	if ids, _, _ := other.Identities("shop", "", "", 10); len(ids) != 0 {
		t.Fatalf("a refused restore raised %v", ids)
	}
}

// A backup says whether it holds keys, from its bytes alone: a database's backup too, and one
// of a database deleted since (its setting stays).
func TestBackupHoldsKeys(t *testing.T) {
	f := oldCluster(t)
	holds := func(write func(*bytes.Buffer) error) bool {
		t.Helper()
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		held, err := BackupHoldsKeys(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ReadBackup(&buf)
		if err != nil || b.HoldsKeys() != held {
			t.Fatalf("ReadBackup: %v; HoldsKeys %v, BackupHoldsKeys %v", err, b.HoldsKeys(), held)
		}
		return held
	}
	whole := func(buf *bytes.Buffer) error { return f.WriteBackup(buf, IssueRates{}) }
	shop := func(buf *bytes.Buffer) error { return f.WriteDatabaseBackup(buf, "shop", IssueRates{}) }
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	if holds(whole) || holds(shop) {
		t.Fatal("a backup without opaque settings holds keys")
	}
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA})
	if !holds(whole) || !holds(shop) {
		t.Fatal("a backup of an opaque database holds no key")
	}
	mustApply(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "shop"})
	if !holds(whole) {
		t.Fatal("a backup of a deleted opaque database holds no key")
	}
	if _, err := BackupHoldsKeys(bytes.NewReader([]byte("not a backup"))); err == nil {
		t.Fatal("BackupHoldsKeys read what is not a backup")
	}
}

// A backup's workers of a database whose numeric IDs were plain minted plain numeric IDs,
// which could equal the forms of a database whose numeric IDs are opaque here: a restore that
// would bring them in is refused, naming the database, before anything moved. A node's minter
// minted plain IDs there as a client did, so the holder does not matter.
func TestRestoreOfPlainWorkersIntoOpaqueNumericIsRefused(t *testing.T) {
	old := New()
	mustApply(t, old, RegisterNodeCommand, registerCommand("A", "A", "inc-a"))
	for _, holder := range []string{NodeHolderPrefix + "A", "app-1"} {
		if l, ok := acquireAs(t, old, holder).(WorkerLease); !ok {
			t.Fatalf("lease for %s in a plain database answered %+v", holder, l)
		}
	}
	mustApply(t, old, IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: "orders", Count: 5}}})
	b := backupOf(t, old)
	here := New()
	mustApply(t, here, RegisterNodeCommand, registerCommand("B", "B", "inc-b"))
	mustMakeOpaque(t, here, &raftv1.MakeOpaque{Numeric: true, Key: opaqueKeyA})
	wantErr(t, here.CheckOpaqueRestore(b), ErrOpaqueWouldCollide, `database "default" has opaque numeric IDs here`)
	wantErr(t, restoreBackup(t, here, b), ErrOpaqueWouldCollide, `database "default" has opaque numeric IDs here`)
	if ws := mustWorkers(t, here, ""); len(ws) != 0 {
		t.Fatalf("a refused restore brought workers %+v", ws)
	}
	if ids, _, _ := here.Identities("", "", "", 10); len(ids) != 0 {
		t.Fatalf("a refused restore raised %v", ids)
	}
	// The floors alone, as a hand-made command would bring them, are refused the same.
	cmd := b.RaiseFloorCommands(10)[0]
	if len(cmd.GetOpaqueNumericDatabases()) != 0 {
		t.Fatalf("a plain backup's command names opaque numeric databases %v", cmd.GetOpaqueNumericDatabases())
	}
	wantErr(t, mustApply(t, here, RaiseFloorCommand, cmd), ErrOpaqueWouldCollide, `"default"`)
	// Into a database whose numeric IDs are plain, the same backup restores.
	plain := New()
	if err := plain.CheckOpaqueRestore(b); err != nil {
		t.Fatalf("CheckOpaqueRestore into a plain cluster: %v", err)
	}
	if err := restoreBackup(t, plain, b); err != nil {
		t.Fatalf("restore into a plain cluster: %v", err)
	}
}

// A backup of a database whose numeric IDs are opaque restores its workers into a fresh
// cluster, whichever node's minters held them there; this cluster's own nodes then lease fresh
// workers beside them, a client still cannot, and the restored lease renews. The floors before the setting (another
// order of the entries) leave the numeric IDs plain: MakeOpaque then refuses, as it does after
// any lease.
func TestRestoreOfOpaqueNumericWorkersIntoAFreshCluster(t *testing.T) {
	old := New()
	mustApply(t, old, RegisterNodeCommand, registerCommand("A", "A", "inc-a"))
	mustMakeOpaque(t, old, &raftv1.MakeOpaque{Numeric: true, Key: opaqueKeyA})
	if l, ok := acquireAs(t, old, NodeHolderPrefix+"A").(WorkerLease); !ok {
		t.Fatalf("node A's minter's lease answered %+v", l)
	}
	b := backupOf(t, old)
	for _, cmd := range b.RaiseFloorCommands(1) {
		if len(cmd.GetWorkers()) > 0 && !slices.Equal(cmd.GetOpaqueNumericDatabases(), []string{""}) {
			t.Fatalf("a command of the default database's workers names opaque numeric databases %q", cmd.GetOpaqueNumericDatabases())
		}
	}
	fresh := New()
	mustApply(t, fresh, RegisterNodeCommand, registerCommand("B", "B", "inc-b"))
	if err := fresh.CheckOpaqueRestore(b); err != nil {
		t.Fatalf("CheckOpaqueRestore into a fresh cluster: %v", err)
	}
	if err := restoreBackup(t, fresh, b); err != nil {
		t.Fatalf("restore into a fresh cluster: %v", err)
	}
	if ws := mustWorkers(t, fresh, ""); len(ws) != 1 || ws[0].Holder != "node:A" {
		t.Fatalf("restored workers %+v", ws)
	}
	if l, ok := acquireAs(t, fresh, NodeHolderPrefix+"B").(WorkerLease); !ok || l.Worker != 1 {
		t.Fatalf("node B's minter's lease after the restore answered %+v", l)
	}
	wantErr(t, acquireAs(t, fresh, "app-1"), ErrOpaqueClientLease, "app-1")
	// The rule reads the holder at a lease's start only: a restored worker's lease renews.
	if l, ok := mustApply(t, fresh, RenewWorkerCommand, &raftv1.RenewWorker{Worker: 0, Epoch: 1, LeaseMs: testLeaseMs, ProposedAtMs: 1_000_001}).(WorkerLease); !ok {
		t.Fatalf("the restored worker's renewal answered %+v", l)
	}

	floorsFirst := New()
	if _, err := raiseFloor(t, floorsFirst, b, 3); err != nil {
		t.Fatalf("floors into a fresh cluster: %v", err)
	}
	// The cluster now holds the database's workers with plain numeric IDs: the backup's
	// setting is refused, up front as when it applies.
	wantErr(t, floorsFirst.CheckOpaqueRestore(b), ErrOpaqueWouldCollide, `the backup's numeric IDs of database "default" are opaque`)
	for _, cmd := range b.OpaqueCommands() {
		wantErr(t, mustApply(t, floorsFirst, MakeOpaqueCommand, cmd), ErrOpaqueWouldCollide, `the backup's numeric IDs of database "default" are opaque`)
	}
}
