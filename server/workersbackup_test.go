package server_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// A backup carries the numeric-ID workers to another cluster: each keeps its high-water there,
// so a holder there mints above whatever the backup's cluster may have minted.
func TestWorkersBackupAndRestore(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		from, to := newVirtualTestCluster(t, 1), newVirtualTestCluster(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		fromIDs := idnodev1.NewIdServiceClient(from.Dial(t, "A"))
		fromCluster := idnodev1.NewClusterServiceClient(from.Dial(t, "A"))
		toIDs := idnodev1.NewIdServiceClient(to.Dial(t, "A"))
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))

		const longLease = 3_600_000
		if _, err := fromCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
			t.Fatal(err)
		}
		held, err := fromIDs.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Database: "billing", Holder: "invoicer", WorkerBits: 10, LeaseMs: longLease})
		if err != nil {
			t.Fatal(err)
		}
		// The database's backup: the whole cluster's would carry node tag A, which the other
		// cluster's node holds.
		resp, err := restoreInto(ctx, toCluster, backupOf(t, ctx, fromCluster, "billing"))
		if err != nil {
			t.Fatalf("Restore: %v", err)
		}
		if resp.GetWorkers() != 1 || resp.GetWorkersRaised() != 1 {
			t.Fatalf("Restore answered %v; want 1 worker, raised", resp)
		}
		got, err := toIDs.ListWorkers(ctx, &idnodev1.ListWorkersRequest{Database: "billing"})
		if err != nil || len(got.GetWorkers()) != 1 || got.GetWorkers()[0].GetMaxMs() != held.GetMaxMs() {
			t.Fatalf("ListWorkers after the restore: %v, %v; want worker %d with high-water %d", got, err, held.GetWorker(), held.GetMaxMs())
		}
		next, err := toIDs.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Database: "billing", Holder: "other", WorkerBits: 10, LeaseMs: longLease})
		if err != nil || next.GetWorker() == held.GetWorker() {
			t.Fatalf("AcquireWorker after the restore: %v, %v; want another worker than %d, whose lease runs", next, err, held.GetWorker())
		}
	})
}
