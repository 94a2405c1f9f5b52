package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/opaque"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// newOpaqueKey is a fresh database key, as a leader makes one.
func newOpaqueKey(t *testing.T) []byte {
	t.Helper()
	key := make([]byte, fsm.OpaqueKeyLen)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return key
}

// makeOpaque proposes cmd on the leader ln, as the admin call does once the cluster version
// allows it.
func makeOpaque(t *testing.T, ctx context.Context, ln fsm.Applier, cmd *raftv1.MakeOpaque) {
	t.Helper()
	if _, err := fsm.Propose(ctx, ln, fsm.ProposeMakeOpaque, cmd); err != nil {
		t.Fatalf("MakeOpaque %v: %v", cmd, err)
	}
}

// formOf is the opaque form a setting gives value in collection.
func formOf(t *testing.T, s fsm.OpaqueSetting, collection string, value int64) string {
	t.Helper()
	c, err := opaque.NewIdentityCodec(s.Key, s.Fold(collection))
	if err != nil {
		t.Fatal(err)
	}
	form, err := c.Encode(value)
	if err != nil {
		t.Fatal(err)
	}
	return form
}

// backupBuiltBy is a backup file of a cluster that never had a node (so no node tag clashes with
// the cluster restored into), written by a real FSM after build's commands.
func backupBuiltBy(t *testing.T, build func(apply func(fsm.CommandType, proto.Message))) []byte {
	t.Helper()
	f := fsm.New()
	build(func(typ fsm.CommandType, m proto.Message) {
		data, err := fsm.Encode(typ, m)
		if err != nil {
			t.Fatal(err)
		}
		if err, ok := f.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
			t.Fatalf("command %d %v: %v", typ, m, err)
		}
	})
	var b bytes.Buffer
	if err := f.WriteBackup(&b, fsm.IssueRates{}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// opaqueBackup is a backup (backupBuiltBy) in which each of the databases has its "invoices"
// counter at 50 and its collection "orders" opaque under its key.
func opaqueBackup(t *testing.T, keys map[string][]byte) []byte {
	t.Helper()
	return backupBuiltBy(t, func(apply func(fsm.CommandType, proto.Message)) {
		for db, key := range keys {
			apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: db})
			apply(fsm.IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Database: db, Name: "invoices", Count: 50}}})
			apply(fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: db, Collections: []string{"orders"}, Key: key})
		}
	})
}

// nextInvoice is the next value of database's "invoices" counter, through c.
func nextInvoice(t *testing.T, ctx context.Context, c idnodev1.IdServiceClient, database string) int64 {
	t.Helper()
	id, err := c.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Database: database, Name: "invoices"})
	if err != nil {
		t.Fatalf("NextIdentity: %v", err)
	}
	return id.GetFirst()
}

// A backup of a database with an opaque collection, restored through a follower into a fresh
// cluster, puts the database's key and setting back on every node: a value has the same form
// in both clusters. The same restore again adds nothing.
func TestRestorePutsTheOpaqueKeyBack(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		from, to := newVirtualTestCluster(t, 1), newVirtualTestCluster(t, 2)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		fromCluster := idnodev1.NewClusterServiceClient(from.Dial(t, "A"))
		if _, err := fromCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "shop"}); err != nil {
			t.Fatal(err)
		}
		fromIDs := idnodev1.NewIdServiceClient(from.Dial(t, "A"))
		for range 3 {
			if _, err := fromIDs.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Database: "shop", Name: "orders"}); err != nil {
				t.Fatal(err)
			}
		}
		makeOpaque(t, ctx, from.Node("A").Node, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: newOpaqueKey(t)})
		want, ok := from.Node("A").Node.FSM().Opaque("shop")
		if !ok {
			t.Fatal("database shop of the old cluster is not opaque")
		}
		backup := backupOf(t, ctx, fromCluster, "shop")

		follower := without(to.Tags(), to.waitLeader(convergeTimeout, to.Tags()...))[0]
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, follower))
		resp, err := restoreInto(ctx, toCluster, backup)
		if err != nil || resp.GetOpaqueDatabases() != 1 || resp.GetOpaqueRestored() != 1 {
			t.Fatalf("Restore through follower %s = %v, %v; want 1 opaque database, restored", follower, resp, err)
		}
		for _, tag := range to.Tags() {
			var got fsm.OpaqueSetting
			waitFor(t, "node "+tag+" holds the backup's opaque setting", convergeTimeout, func() (bool, string) {
				got, ok = to.Node(tag).Node.FSM().Opaque("shop")
				if !ok || got.Fingerprint() != want.Fingerprint() || !slices.Equal(got.Collections, want.Collections) || got.Numeric != want.Numeric {
					return false, fmt.Sprintf("setting %v (key %s), want collections %v, key %s", ok, got.Fingerprint(), want.Collections, want.Fingerprint())
				}
				return true, ""
			})
			if g, w := formOf(t, got, "orders", 3), formOf(t, want, "orders", 3); g != w {
				t.Errorf("node %s gives value 3 of orders the form %s, the old cluster %s", tag, g, w)
			}
		}
		again, err := restoreInto(ctx, toCluster, backup)
		if err != nil || again.GetOpaqueDatabases() != 1 || again.GetOpaqueRestored() != 0 {
			t.Fatalf("the same restore again = %v, %v; want 1 opaque database, none new", again, err)
		}
	})
}

// A restore whose key for a database differs from the one the cluster's database holds is
// refused naming the database and both keys' fingerprints, before anything moved: no floor
// rose, and no other database of the backup got its key.
func TestRestoreRefusesAnotherOpaqueKeyBeforeAnythingMoves(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		to := newVirtualTestCluster(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))
		if _, err := toCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "shop"}); err != nil {
			t.Fatal(err)
		}
		toIDs := idnodev1.NewIdServiceClient(to.Dial(t, "A"))
		nextInvoice(t, ctx, toIDs, "shop")
		here := newOpaqueKey(t)
		makeOpaque(t, ctx, to.Node("A").Node, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: here})
		theirs := newOpaqueKey(t)
		// "alpha" comes first in the backup: its key must not be set before shop's refuses.
		backup := opaqueBackup(t, map[string][]byte{"alpha": newOpaqueKey(t), "shop": theirs})

		_, err := restoreInto(ctx, toCluster, backup)
		if s, ok := to.Node("A").Node.FSM().Opaque("shop"); !ok || !bytes.Equal(s.Key, here) {
			t.Errorf("after the refused restore shop's key is %s, want its own %s", s.Fingerprint(), fsm.OpaqueKeyFingerprint(here))
		}
		if s, ok := to.Node("A").Node.FSM().Opaque("alpha"); ok {
			t.Errorf("the refused restore gave database alpha the backup's key %s", s.Fingerprint())
		}
		if next := nextInvoice(t, ctx, toIDs, "shop"); next != 2 {
			t.Errorf("after the refused restore shop's next invoice is %d, want 2: a floor moved", next)
		}
		refusedSaying(t, "a restore with another key for shop", err, `"shop"`, fsm.OpaqueKeyFingerprint(here), fsm.OpaqueKeyFingerprint(theirs), "nothing was restored")
	})
}

// A cluster below version 5 has no MakeOpaque: a restore of a backup holding keys is refused
// saying which databases and which version, before anything moved.
func TestRestoreOfKeysWaitsForClusterVersion5(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		to := newVirtualTestCluster(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := fsm.Propose(ctx, to.Node("A").Node, fsm.ProposeSetClusterVersion, &raftv1.SetClusterVersion{Version: 4}); err != nil {
			t.Fatalf("lowering the cluster version to 4: %v", err)
		}
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))
		_, err := restoreInto(ctx, toCluster, opaqueBackup(t, map[string][]byte{"shop": newOpaqueKey(t)}))
		refusedSaying(t, "a restore of keys at cluster version 4", err, "opaque keys of databases shop", "cluster version 5", "nothing was restored")
		dbs, err := toCluster.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dbs.GetDatabases() {
			if d.GetName() == "shop" {
				t.Fatalf("the refused restore raised shop's floors (created it): %v", dbs)
			}
		}
		if _, ok := to.Node("A").Node.FSM().Opaque("shop"); ok {
			t.Error("the refused restore made shop opaque")
		}
	})
}

// A backup of a database whose numeric IDs were plain, with a client's worker, restored into a
// cluster where that database's numeric IDs are opaque, is refused naming it and why, before
// anything moved: not the key of another database of the backup, not a floor.
func TestRestoreOfPlainWorkersIntoOpaqueNumericIsRefused(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		to := newVirtualTestCluster(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))
		if _, err := toCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "shop"}); err != nil {
			t.Fatal(err)
		}
		makeOpaque(t, ctx, to.Node("A").Node, &raftv1.MakeOpaque{Database: "shop", Numeric: true, Key: newOpaqueKey(t)})
		// "alpha" comes first in the backup: its key must not be set before shop's workers refuse.
		backup := backupBuiltBy(t, func(apply func(fsm.CommandType, proto.Message)) {
			apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "alpha"})
			apply(fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "alpha", Collections: []string{"orders"}, Key: newOpaqueKey(t)})
			apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
			apply(fsm.IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Database: "shop", Name: "invoices", Count: 50}}})
			apply(fsm.AcquireWorkerCommand, &raftv1.AcquireWorker{Database: "shop", Holder: "app-1", WorkerBits: 10, LeaseMs: 60_000, ProposedAtMs: 1_000_000})
		})

		_, err := restoreInto(ctx, toCluster, backup)
		if s, ok := to.Node("A").Node.FSM().Opaque("alpha"); ok {
			t.Errorf("the refused restore gave database alpha the backup's key %s", s.Fingerprint())
		}
		if ws, err := to.Node("A").Node.FSM().Workers("shop"); err != nil || len(ws) != 0 {
			t.Errorf("the refused restore brought shop's workers %+v (%v)", ws, err)
		}
		if next := nextInvoice(t, ctx, idnodev1.NewIdServiceClient(to.Dial(t, "A")), "shop"); next != 1 {
			t.Errorf("after the refused restore shop's next invoice is %d, want 1: a floor moved", next)
		}
		refusedSaying(t, "a restore of plain workers into opaque numeric IDs", err, `database "shop" has opaque numeric IDs here`,
			"could equal this cluster's forms", "nothing was restored")
	})
}

// The other side: a backup whose numeric IDs are opaque, restored into a cluster where that
// database has leased a worker (its numeric IDs plain), is refused by MakeOpaque's own rule,
// up front, naming it, before another database of the backup got its key.
func TestRestoreOfOpaqueNumericIntoLeasedDatabaseIsRefused(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		to := newVirtualTestCluster(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))
		if _, err := toCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "shop"}); err != nil {
			t.Fatal(err)
		}
		if _, err := fsm.Propose(ctx, to.Node("A").Node, fsm.ProposeAcquireWorker, &raftv1.AcquireWorker{Database: "shop", Holder: "app-1", WorkerBits: 10,
			LeaseMs: 60_000, ProposedAtMs: time.Now().UnixMilli()}); err != nil {
			t.Fatal(err)
		}
		backup := backupBuiltBy(t, func(apply func(fsm.CommandType, proto.Message)) {
			apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "alpha"})
			apply(fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "alpha", Collections: []string{"orders"}, Key: newOpaqueKey(t)})
			apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
			apply(fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "shop", Numeric: true, Key: newOpaqueKey(t)})
		})

		_, err := restoreInto(ctx, toCluster, backup)
		for _, db := range []string{"alpha", "shop"} {
			if s, ok := to.Node("A").Node.FSM().Opaque(db); ok {
				t.Errorf("the refused restore gave database %s the backup's key %s", db, s.Fingerprint())
			}
		}
		refusedSaying(t, "a restore of opaque numeric IDs into a database with leases", err, `the backup's numeric IDs of database "shop" are opaque`,
			"leased numeric-ID workers", "nothing was restored")
	})
}

// A collection turns opaque only while no plain ID it gave has 13 digits (its counter below
// fsm.OpaquePlainLimit), and a restore keeps that from both sides up front: a backup whose
// collection is opaque into a cluster where it is plain with its counter at the bound, and a
// backup whose collection is plain with its counter at the bound into a cluster where it is
// opaque. Each is refused naming the collection, the database and the value, before another
// database of the backup ("alpha", first) got its key or a floor moved.
func TestRestoreRefusesPlainCountersAtTheBoundAgainstOpaqueCollections(t *testing.T) {
	t.Parallel()
	bound := fmt.Sprint(int64(fsm.OpaquePlainLimit))
	for _, tc := range []struct {
		name string
		// here prepares database shop of the cluster restored into.
		here func(t *testing.T, ctx context.Context, ln fsm.Applier)
		// shop builds database shop of the backup.
		shop func(apply func(fsm.CommandType, proto.Message))
		want []string
	}{{
		name: "opaque in the backup, plain at the bound here",
		here: func(t *testing.T, ctx context.Context, ln fsm.Applier) {
			if _, err := fsm.Propose(ctx, ln, fsm.ProposeRaiseFloor, &raftv1.RaiseFloor{Identities: []*raftv1.IdentityRecord{
				{Database: "shop", Name: "Orders", Value: fsm.OpaquePlainLimit}}}); err != nil {
				t.Fatal(err)
			}
		},
		shop: func(apply func(fsm.CommandType, proto.Message)) {
			apply(fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: newOpaqueKey(t)})
		},
		want: []string{`collection "orders" of database "shop" has its identity counter at ` + bound},
	}, {
		name: "plain at the bound in the backup, opaque here",
		here: func(t *testing.T, ctx context.Context, ln fsm.Applier) {
			makeOpaque(t, ctx, ln, &raftv1.MakeOpaque{Database: "shop", Collections: []string{"orders"}, Key: newOpaqueKey(t)})
		},
		shop: func(apply func(fsm.CommandType, proto.Message)) {
			apply(fsm.RaiseFloorCommand, &raftv1.RaiseFloor{Identities: []*raftv1.IdentityRecord{{Database: "shop", Name: "ORDERS", Value: fsm.OpaquePlainLimit}}})
		},
		want: []string{`collection "ORDERS" of database "shop" is opaque here`, "kept it plain up to " + bound},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			to := newTestCluster(t, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))
			if _, err := toCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "shop"}); err != nil {
				t.Fatal(err)
			}
			tc.here(t, ctx, to.Node("A").Node)
			before, _ := to.Node("A").Node.FSM().Opaque("shop")
			backup := backupBuiltBy(t, func(apply func(fsm.CommandType, proto.Message)) {
				apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "alpha"})
				apply(fsm.MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "alpha", Collections: []string{"orders"}, Key: newOpaqueKey(t)})
				apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
				apply(fsm.IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Database: "shop", Name: "invoices", Count: 50}}})
				tc.shop(apply)
			})

			_, err := restoreInto(ctx, toCluster, backup)
			if s, ok := to.Node("A").Node.FSM().Opaque("alpha"); ok {
				t.Errorf("the refused restore gave database alpha the backup's key %s", s.Fingerprint())
			}
			if after, _ := to.Node("A").Node.FSM().Opaque("shop"); after.Fingerprint() != before.Fingerprint() || !slices.Equal(after.Collections, before.Collections) {
				t.Errorf("the refused restore changed shop's opaque setting from %v to %v", before.Collections, after.Collections)
			}
			if next := nextInvoice(t, ctx, idnodev1.NewIdServiceClient(to.Dial(t, "A")), "shop"); next != 1 {
				t.Errorf("after the refused restore shop's next invoice is %d, want 1: a floor moved", next)
			}
			refusedSaying(t, "the restore", err, append(tc.want, "nothing was restored")...)
		})
	}
}
