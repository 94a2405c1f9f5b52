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
	whole := func(buf *bytes.Buffer) error { return f.WriteBackup(buf) }
	shop := func(buf *bytes.Buffer) error { return f.WriteDatabaseBackup(buf, "shop") }
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
