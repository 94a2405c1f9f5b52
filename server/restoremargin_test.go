package server_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// restoreAhead is restoreInto with a margin on the (only) chunk.
func restoreAhead(ctx context.Context, c idnodev1.ClusterServiceClient, data []byte, ahead *idnodev1.RestoreMargin) (*idnodev1.RestoreResponse, error) {
	stream, err := c.Restore(ctx)
	if err != nil {
		return nil, err
	}
	if err := stream.Send(&idnodev1.RestoreChunk{Data: data, Ahead: ahead}); err != nil {
		return nil, err
	}
	return stream.CloseAndRecv()
}

// issued is what a cluster handed out in a database: identity values of "invoices" and the
// HiLo ranges of "orders".
type issued struct {
	identities []int64
	ranges     []*idnodev1.NextHiLoResponse
}

// issue hands out n identities and n HiLo ranges in database billing through ids.
func issue(t *testing.T, ctx context.Context, ids idnodev1.IdServiceClient, n int) issued {
	t.Helper()
	var out issued
	for range n {
		id, err := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Database: "billing", Name: "invoices"})
		if err != nil {
			t.Fatalf("NextIdentity: %v", err)
		}
		out.identities = append(out.identities, id.GetFirst())
		r, err := ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Database: "billing", Tag: "orders"})
		if err != nil {
			t.Fatalf("NextHiLo: %v", err)
		}
		out.ranges = append(out.ranges, r)
	}
	return out
}

// A backup is older than the last IDs its cluster issued. Restored without a margin, the new
// cluster hands out again an identity and HiLo numbers the old one issued after the backup (the
// risk docs/backups.md states); restored with one at least as large as what was issued since,
// everything the old cluster issued after the backup lies below the new cluster's next values.
func TestRestoreMarginSkipsWhatTheOldClusterIssuedAfterTheBackup(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		// The cluster restored with a margin has two nodes: the restore goes through the follower,
		// which forwards the margin with the backup.
		old, bare, ahead := newVirtualTestCluster(t, 1), newVirtualTestCluster(t, 1), newVirtualTestCluster(t, 2)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		oldCluster := idnodev1.NewClusterServiceClient(old.Dial(t, "A"))
		if _, err := oldCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
			t.Fatal(err)
		}
		oldIDs := idnodev1.NewIdServiceClient(old.Dial(t, "A"))
		issue(t, ctx, oldIDs, 3)
		backup := backupOf(t, ctx, oldCluster, "billing") // one database's: no node tags to clash
		after := issue(t, ctx, oldIDs, 5)
		highestAfter := after.ranges[len(after.ranges)-1].GetHigh()

		// Without a margin: the next identity and HiLo range repeat the old cluster's.
		resp, err := restoreInto(ctx, idnodev1.NewClusterServiceClient(bare.Dial(t, "A")), backup)
		if err != nil {
			t.Fatalf("Restore without a margin: %v", err)
		}
		if resp.GetIdentitiesSkippedMax() != 0 || resp.GetHiloSkippedMax() != 0 {
			t.Fatalf("Restore without a margin answered %v; want nothing skipped", resp)
		}
		again := issue(t, ctx, idnodev1.NewIdServiceClient(bare.Dial(t, "A")), 1)
		if again.identities[0] != after.identities[0] {
			t.Fatalf("without a margin the next identity is %d; want %d, the old cluster's first after the backup (the documented risk)", again.identities[0], after.identities[0])
		}
		if r := again.ranges[0]; r.GetLow() > highestAfter {
			t.Fatalf("without a margin the next HiLo range is %d…%d, above %d; want one the old cluster already granted", r.GetLow(), r.GetHigh(), highestAfter)
		}

		// With a margin: identities 100 ahead (5 were issued since), HiLo maxima 10 % + 1000 ahead
		// (5 ranges of a few dozen numbers were granted since).
		margin := &idnodev1.RestoreMargin{Identities: &idnodev1.CounterMargin{Add: 100}, Hilo: &idnodev1.CounterMargin{Add: 1000, Percent: 10}}
		follower := "A"
		if ahead.waitLeader(30*time.Second, "A", "B") == "A" {
			follower = "B"
		}
		aheadCluster := idnodev1.NewClusterServiceClient(ahead.Dial(t, follower))
		resp, err = restoreAhead(ctx, aheadCluster, backup, margin)
		if err != nil {
			t.Fatalf("Restore with a margin: %v", err)
		}
		if resp.GetAhead().GetIdentities().GetAdd() != 100 || resp.GetAhead().GetHilo().GetPercent() != 10 ||
			resp.GetIdentitiesSkippedMin() != 100 || resp.GetIdentitiesSkippedMax() != 100 || resp.GetHiloSkippedMin() <= 1000 {
			t.Fatalf("Restore with a margin answered %v; want the margin echoed, 100 identities and over 1000 HiLo numbers skipped", resp)
		}
		next := issue(t, ctx, idnodev1.NewIdServiceClient(ahead.Dial(t, follower)), 1)
		for _, id := range after.identities {
			if next.identities[0] <= id {
				t.Fatalf("with a margin the next identity is %d; want it above %d, which the old cluster issued after the backup", next.identities[0], id)
			}
		}
		if low := next.ranges[0].GetLow(); low <= highestAfter {
			t.Fatalf("with a margin the next HiLo range starts at %d; want it above %d, the old cluster's last after the backup", low, highestAfter)
		}
	})
}

// A margin that takes a counter past the largest int64 is refused naming the counter, and a
// negative one is refused; neither changes anything.
func TestRestoreMarginRefusesBadMargins(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		from, to := newVirtualTestCluster(t, 1), newVirtualTestCluster(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		fromCluster := idnodev1.NewClusterServiceClient(from.Dial(t, "A"))
		if _, err := fromCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
			t.Fatal(err)
		}
		issue(t, ctx, idnodev1.NewIdServiceClient(from.Dial(t, "A")), 2)
		backup := backupOf(t, ctx, fromCluster, "billing")
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))
		for _, c := range []struct {
			name   string
			margin *idnodev1.RestoreMargin
			code   codes.Code
			names  string
		}{
			{"identity overflow", &idnodev1.RestoreMargin{Identities: &idnodev1.CounterMargin{Add: 1<<63 - 2}}, codes.OutOfRange, `identity "invoices" of database billing`},
			{"hilo overflow", &idnodev1.RestoreMargin{Hilo: &idnodev1.CounterMargin{Add: 1<<63 - 10}}, codes.OutOfRange, `HiLo tag "orders" of database billing`},
			{"negative", &idnodev1.RestoreMargin{Identities: &idnodev1.CounterMargin{Add: -1}}, codes.InvalidArgument, "identity margin"},
		} {
			_, err := restoreAhead(ctx, toCluster, backup, c.margin)
			if status.Code(err) != c.code || !strings.Contains(err.Error(), c.names) {
				t.Errorf("%s: Restore answered %v; want %v naming %s", c.name, err, c.code, c.names)
			}
		}
		dbs, err := toCluster.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dbs.GetDatabases() {
			if d.GetName() == "billing" {
				t.Fatalf("a refused restore created database billing: %v", dbs)
			}
		}
	})
}
