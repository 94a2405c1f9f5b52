package fsm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

var (
	opaqueKeyA = bytes.Repeat([]byte{0xa1}, OpaqueKeyLen)
	opaqueKeyB = bytes.Repeat([]byte{0xb2}, OpaqueKeyLen)
)

func makeOpaque(t *testing.T, f *FSM, m *raftv1.MakeOpaque) any {
	t.Helper()
	return mustApply(t, f, MakeOpaqueCommand, m)
}

func mustMakeOpaque(t *testing.T, f *FSM, m *raftv1.MakeOpaque) OpaqueSetting {
	t.Helper()
	s, ok := makeOpaque(t, f, m).(OpaqueSetting)
	if !ok {
		t.Fatalf("MakeOpaque %v answered %v", m, makeOpaque(t, f, m))
	}
	return s
}

// The first key wins, collections only add up (folded, sorted, once each), and the answer and
// FSM.Opaque agree.
func TestMakeOpaqueAddsCollectionsUnderTheFirstKey(t *testing.T) {
	f := New()
	if _, ok := f.Opaque(""); ok {
		t.Fatal("a new FSM's default database is opaque")
	}
	got := mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"Orders", "invoices", "orders"}, Key: opaqueKeyA})
	if !bytes.Equal(got.Key, opaqueKeyA) || !slices.Equal(got.Collections, []string{"invoices", "orders"}) || got.Numeric {
		t.Fatalf("first MakeOpaque answered %+v", got)
	}
	got = mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"carts"}, Numeric: true, Key: opaqueKeyB})
	if !bytes.Equal(got.Key, opaqueKeyA) || !slices.Equal(got.Collections, []string{"carts", "invoices", "orders"}) || !got.Numeric {
		t.Fatalf("second MakeOpaque answered %+v; want the first key, three collections, numeric", got)
	}
	s, ok := f.Opaque("DEFAULT")
	if !ok || !bytes.Equal(s.Key, opaqueKeyA) || !slices.Equal(s.Collections, got.Collections) || !s.Numeric {
		t.Fatalf("Opaque(DEFAULT) = %+v, %v", s, ok)
	}
	if !s.Has("ORDERS") || !s.Has("carts") || s.Has("users") {
		t.Fatalf("Has: ORDERS %v, carts %v, users %v", s.Has("ORDERS"), s.Has("carts"), s.Has("users"))
	}
	s.Key[0], s.Collections[0] = 0, "x" // a copy: the FSM's stays
	if again, _ := f.Opaque(""); !bytes.Equal(again.Key, opaqueKeyA) || again.Collections[0] != "carts" {
		t.Fatalf("changing Opaque's answer changed the FSM's setting: %+v", again)
	}
	// Idempotent: the same command again changes nothing.
	if again := mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyB}); !slices.Equal(again.Collections, got.Collections) || !again.Numeric {
		t.Fatalf("MakeOpaque again answered %+v", again)
	}
}

func TestMakeOpaqueRefusals(t *testing.T) {
	f := New()
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA[:16]}), ErrInvalidOpaque, "16 bytes")
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA}), ErrDatabaseNotFound, "shop")
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"#numeric"}, Key: opaqueKeyA}), ErrInvalidOpaque, "#numeric")
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{""}, Key: opaqueKeyA}), ErrInvalidOpaque, "empty")
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"a|b"}, Key: opaqueKeyA}), ErrInvalidOpaque, "pipe")
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"straße"}, Key: opaqueKeyA}), ErrInvalidOpaque, "straße")
	// A counter that may have given a 13-digit plain ID: refused, naming it and its value,
	// and nothing changes, not even for the other collection of the command.
	mustSeed(t, f, "Orders", OpaquePlainLimit, false)
	mustSeed(t, f, "carts", OpaquePlainLimit-1, false)
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"carts", "Orders"}, Key: opaqueKeyA}), ErrOpaqueWouldCollide, `"Orders" of database "default" has its identity counter at 999999999999`)
	if s, ok := f.Opaque(""); ok {
		t.Fatalf("a refused MakeOpaque left %+v", s)
	}
	var buf bytes.Buffer
	if err := (&snapshot{records: f.st.records(false)}).write(&buf); err != nil || bytes.Contains(buf.Bytes(), opaqueKeyA) {
		t.Fatalf("a refused MakeOpaque left its key in the state (%v)", err)
	}
	if s := mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"carts"}, Key: opaqueKeyA}); !slices.Equal(s.Collections, []string{"carts"}) {
		t.Fatalf("carts at %d: %+v", OpaquePlainLimit-1, s)
	}
	// Too many collections.
	many := make([]string, MaxOpaqueCollections)
	for i := range many {
		many[i] = "c" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: many, Key: opaqueKeyA}), ErrLimitReached, "1025 opaque collections")
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Collections: append(many, "more"), Key: opaqueKeyA}), ErrLimitReached, "1025 opaque collections")
}

// A database's numeric IDs cannot turn opaque once it leased a worker, even a released one:
// the plain numeric IDs minted may have a form's 13 symbols.
func TestMakeOpaqueNumericRefusedAfterAnyWorkerLease(t *testing.T) {
	f := New()
	l := mustAcquire(t, f, 10, 1_000_000)
	if out := release(t, f, l.Worker, l.Epoch, 1_000_001); out != nil {
		t.Fatalf("release: %v", out)
	}
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Numeric: true, Key: opaqueKeyA}), ErrOpaqueWouldCollide, "workers")
	// A restored snapshot remembers the lease.
	wantErr(t, makeOpaque(t, mustRestore(t, snapshotBytes(t, f)), &raftv1.MakeOpaque{Numeric: true, Key: opaqueKeyA}), ErrOpaqueWouldCollide, "workers")
	// Collections may still turn opaque.
	if s := mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA}); s.Numeric {
		t.Fatalf("numeric after a collections-only MakeOpaque: %+v", s)
	}
	// A database that turned numeric first stays so when its nodes' minters lease workers.
	g := New()
	mustMakeOpaque(t, g, &raftv1.MakeOpaque{Numeric: true, Key: opaqueKeyA})
	if err, ok := mustApply(t, g, RegisterNodeCommand, registerCommand("A", "A", "inc-a")).(error); ok {
		t.Fatal(err)
	}
	if l, ok := acquireAs(t, g, NodeHolderPrefix+"A").(WorkerLease); !ok {
		t.Fatalf("node A's minter's lease answered %v", l)
	}
	if s := mustMakeOpaque(t, g, &raftv1.MakeOpaque{Numeric: true, Key: opaqueKeyA}); !s.Numeric {
		t.Fatalf("numeric MakeOpaque again after a lease: %+v", s)
	}
}

// acquireAs applies an AcquireWorker of a 10-bit worker in the default database for holder.
func acquireAs(t *testing.T, f *FSM, holder string) any {
	t.Helper()
	return mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Holder: holder, WorkerBits: 10, LeaseMs: testLeaseMs, ProposedAtMs: 1_000_000})
}

// In a database whose numeric IDs are opaque only a registered node's own minter (holder
// NodeHolderPrefix and its tag) leases a worker: a client's holder, or the minter's name of a
// tag no node holds, is refused, and a restored snapshot answers the same, since the rule reads
// only the state.
func TestOpaqueNumericLeasesOnlyToRegisteredNodesMinters(t *testing.T) {
	f := New()
	if err, ok := mustApply(t, f, RegisterNodeCommand, registerCommand("A", "A", "inc-a")).(error); ok {
		t.Fatal(err)
	}
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Numeric: true, Key: opaqueKeyA})
	for _, holder := range []string{"app-1", "", "node:", "node:B", "Node:A", "node:A ", "node:a"} {
		wantErr(t, acquireAs(t, f, holder), ErrOpaqueClientLease, `"default"`)
	}
	restored := mustRestore(t, snapshotBytes(t, f))
	wantErr(t, acquireAs(t, restored, "app-1"), ErrOpaqueClientLease, "app-1")
	for _, g := range []*FSM{f, restored} {
		l, ok := acquireAs(t, g, NodeHolderPrefix+"A").(WorkerLease)
		if !ok || l.Holder != "node:A" {
			t.Fatalf("node A's minter's lease answered %+v", l)
		}
	}
	// A database whose numeric IDs are plain leases to any holder.
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "plain"})
	if l, ok := mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Database: "plain", Holder: "app-1", WorkerBits: 10, LeaseMs: testLeaseMs,
		ProposedAtMs: 1_000_000}).(WorkerLease); !ok {
		t.Fatalf("a client's lease in a plain database answered %+v", l)
	}
}

// A restore's key must be the database's: another refuses it, naming the database; the same
// one, or none held, is taken. A restore may put back a database the cluster lacks.
func TestMakeOpaqueRestoreKeys(t *testing.T) {
	f := New()
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA})
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"carts"}, Key: opaqueKeyB, Restore: true}), ErrOpaqueKeyDiffers, `database "shop"`)
	if s, _ := f.Opaque("shop"); !slices.Equal(s.Collections, []string{"orders"}) {
		t.Fatalf("a refused restore changed the setting: %+v", s)
	}
	if s := mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"carts"}, Key: opaqueKeyA, Restore: true}); !slices.Equal(s.Collections, []string{"carts", "orders"}) {
		t.Fatalf("a restore with the same key: %+v", s)
	}
	// No key held: the backup's is taken.
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"users"}, Key: opaqueKeyB, Restore: true})
	if s, _ := f.Opaque(""); !bytes.Equal(s.Key, opaqueKeyB) {
		t.Fatalf("restore into a database without a key: %+v", s)
	}
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "new", Numeric: true, Key: opaqueKeyB, Restore: true})
	if s, ok := f.Opaque("new"); !ok || !s.Numeric || !bytes.Equal(s.Key, opaqueKeyB) {
		t.Fatalf("a restore of a database the cluster lacks: %+v, %v", s, ok)
	}
}

// Deleting a database keeps its setting, as it keeps its counters: created again, it is
// opaque where it was, under the same key, and no collection goes back to plain IDs.
func TestDeletedDatabaseKeepsItsOpaqueSetting(t *testing.T) {
	f := New()
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Numeric: true, Key: opaqueKeyA})
	mustApply(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "shop"})
	if _, ok := f.Opaque("shop"); ok {
		t.Fatal("a deleted database answers an opaque setting")
	}
	wantErr(t, makeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"carts"}, Key: opaqueKeyB}), ErrDatabaseNotFound, "shop")
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	restored := mustRestore(t, snapshotBytes(t, f))
	for _, g := range []*FSM{f, restored} {
		if s, ok := g.Opaque("shop"); !ok || !bytes.Equal(s.Key, opaqueKeyA) || !slices.Equal(s.Collections, []string{"orders"}) || !s.Numeric {
			t.Fatalf("shop created again: %+v, %v; want the old key, orders and numeric", s, ok)
		}
		s := mustMakeOpaque(t, g, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"carts"}, Key: opaqueKeyB})
		if !bytes.Equal(s.Key, opaqueKeyA) || !slices.Equal(s.Collections, []string{"carts", "orders"}) {
			t.Fatalf("shop created again, then carts: %+v", s)
		}
	}
}

// A snapshot carries the setting and its key, a restore writes the same bytes, and a state
// that never turned opaque writes no opaque record.
func TestOpaqueSettingSurvivesASnapshot(t *testing.T) {
	f := New()
	mustIdentity(t, f, "orders", 3, "")
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA})
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Numeric: true, Key: opaqueKeyB})
	snap := snapshotBytes(t, f)
	if !bytes.Contains(snap, opaqueKeyA) || !bytes.Contains(snap, opaqueKeyB) {
		t.Fatal("the snapshot lacks a key")
	}
	restored := mustRestore(t, snap)
	if again := snapshotBytes(t, restored); !bytes.Equal(snap, again) {
		t.Fatal("a restored snapshot writes other bytes")
	}
	if s, ok := restored.Opaque("shop"); !ok || !s.Numeric || !bytes.Equal(s.Key, opaqueKeyB) || len(s.Collections) != 0 {
		t.Fatalf("restored shop: %+v, %v", s, ok)
	}
	if s, ok := restored.Opaque(""); !ok || !s.Has("Orders") || !bytes.Equal(s.Key, opaqueKeyA) {
		t.Fatalf("restored default: %+v, %v", s, ok)
	}
}

// A state without opaque settings writes the bytes it wrote before opaque collections: no
// record of them at all.
func TestPlainStateWritesNoOpaqueRecord(t *testing.T) {
	f := New()
	mustIdentity(t, f, "orders", 3, "")
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	for _, r := range f.st.records(false) {
		if r.typ == opaqueSettingRecord {
			t.Fatalf("a plain state writes an opaque record: %v", r.msg)
		}
	}
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: opaqueKeyA})
	n := 0
	for _, r := range f.st.records(false) {
		if r.typ == opaqueSettingRecord {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d opaque records for one opaque database", n)
	}
}

// MakeOpaque is version 5's: applying it marks the version used, so no downgrade below it.
func TestMakeOpaqueNeedsClusterVersion5(t *testing.T) {
	if VersionOf(MakeOpaqueCommand) != 5 || CurrentVersion < 5 {
		t.Fatalf("MakeOpaque needs version %d, the build supports %d", VersionOf(MakeOpaqueCommand), CurrentVersion)
	}
	f := New()
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA})
	if used := f.ClusterVersion().Used; used != 5 {
		t.Fatalf("version used after MakeOpaque = %d, want 5", used)
	}
}

// The fingerprint is the contract's: SHA-256 of a label and the key, its first 8 bytes in hex.
func TestOpaqueKeyFingerprint(t *testing.T) {
	sum := sha256.Sum256(append([]byte("idnode opaque key fingerprint"), opaqueKeyA...))
	if got, want := (OpaqueSetting{Key: opaqueKeyA}).Fingerprint(), hex.EncodeToString(sum[:8]); got != want {
		t.Fatalf("fingerprint %q, want %q", got, want)
	}
	if OpaqueKeyFingerprint(opaqueKeyA) == OpaqueKeyFingerprint(opaqueKeyB) {
		t.Fatal("two keys have one fingerprint")
	}
}
