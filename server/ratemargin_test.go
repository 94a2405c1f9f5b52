package server_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
)

// testClock is a wall clock the test moves: the nodes' Now.
type testClock struct{ ms atomic.Int64 }

func (c *testClock) now() time.Time          { return time.UnixMilli(c.ms.Load()) }
func (c *testClock) advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }
func (c *testClock) set(t time.Time)         { c.ms.Store(t.UnixMilli()) }

// clusterAt is a one-node cluster in the caller's synctest bubble whose issue rates are
// sampled on c, when the test says.
func clusterAt(t *testing.T, c *testClock) *testCluster {
	return newVirtualTestClusterWith(t, 1, func(sc server.Config) server.Config {
		// The test takes the samples: the node's own would fall at times it does not choose.
		sc.Now, sc.IssueRatesInterval = c.now, 24*time.Hour
		return sc
	})
}

// A backup taken under load records the load's rate and its time. Restored with no margin asked
// but by rates (idctl's default) into a fresh cluster a minute later, every counter is set
// past what the old cluster went on issuing at that rate for that minute, so nothing it
// acknowledged is issued again; restored asking no margin (idctl --ahead 0), the new cluster
// issues again what the old one issued after the backup, as before rates.
func TestRestoreMarginByRatesSkipsWhatTheOldClusterIssuedSince(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		oldClock := &testClock{}
		oldClock.set(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
		old := clusterAt(t, oldClock)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		oldCluster := idnodev1.NewClusterServiceClient(old.Dial(t, "A"))
		if _, err := oldCluster.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
			t.Fatal(err)
		}
		oldIDs := idnodev1.NewIdServiceClient(old.Dial(t, "A"))
		oldServer := old.Node("A").running.Server()

		// The load: 60 identities (and 60 HiLo ranges) in a minute, one a second.
		server.SampleIssueRates(oldServer)
		before := issue(t, ctx, oldIDs, 60)
		oldClock.advance(time.Minute)
		server.SampleIssueRates(oldServer)
		takenAt := oldClock.now()
		backup := backupOf(t, ctx, oldCluster, "billing")
		// The old cluster goes on at the same rate for the minute before it is lost.
		after := issue(t, ctx, oldIDs, 60)
		highestAfter := after.ranges[len(after.ranges)-1].GetHigh()
		hiloBefore := before.ranges[len(before.ranges)-1].GetHigh()

		newClock := &testClock{}
		newClock.set(takenAt.Add(time.Minute)) // the backup is a minute old when restored
		byRates := clusterAt(t, newClock)
		resp, err := restoreAhead(ctx, idnodev1.NewClusterServiceClient(byRates.Dial(t, "A")), backup, &idnodev1.RestoreMargin{ByRates: true})
		if err != nil {
			t.Fatalf("Restore by rates: %v", err)
		}
		r := resp.GetRates()
		if !r.GetRecorded() || r.GetAgeMs() != time.Minute.Milliseconds() || r.GetFactor() != 2 || r.GetTakenInFuture() ||
			r.GetIdentitiesPerSecond() != 1 || r.GetTakenAtMs() != takenAt.UnixMilli() {
			t.Fatalf("Restore by rates assumed %v; want a rate of 1 a second, an age of a minute, a factor of 2", r)
		}
		// 1 a second × 60 s × 2.
		if resp.GetIdentitiesSkippedMin() != 120 || resp.GetIdentitiesSkippedMax() != 120 {
			t.Fatalf("Restore by rates skipped %d to %d identities; want 120", resp.GetIdentitiesSkippedMin(), resp.GetIdentitiesSkippedMax())
		}
		// The HiLo numbers reserved in the minute before the backup, × 2.
		if want := 2 * hiloBefore; resp.GetHiloSkippedMin() < want {
			t.Fatalf("Restore by rates skipped %d HiLo numbers; want at least %d (rate %v a second)", resp.GetHiloSkippedMin(), want, r.GetHiloPerSecond())
		}
		next := issue(t, ctx, idnodev1.NewIdServiceClient(byRates.Dial(t, "A")), 1)
		if last := after.identities[len(after.identities)-1]; next.identities[0] <= last {
			t.Fatalf("after a restore by rates the next identity is %d; want it above %d, which the old cluster issued after the backup", next.identities[0], last)
		}
		if low := next.ranges[0].GetLow(); low <= highestAfter {
			t.Fatalf("after a restore by rates the next HiLo range starts at %d; want it above %d, the old cluster's last after the backup", low, highestAfter)
		}

		// Asking no margin (what idctl sends for --ahead 0): the backup's values, as before rates.
		noneClock := &testClock{}
		noneClock.set(takenAt.Add(time.Minute))
		none := clusterAt(t, noneClock)
		resp, err = restoreAhead(ctx, idnodev1.NewClusterServiceClient(none.Dial(t, "A")), backup, nil)
		if err != nil {
			t.Fatalf("Restore without a margin: %v", err)
		}
		if resp.GetRates() != nil || resp.GetIdentitiesSkippedMax() != 0 || resp.GetHiloSkippedMax() != 0 {
			t.Fatalf("Restore without a margin answered %v; want nothing skipped and no rates", resp)
		}
		again := issue(t, ctx, idnodev1.NewIdServiceClient(none.Dial(t, "A")), 1)
		if again.identities[0] != after.identities[0] {
			t.Fatalf("without a margin the next identity is %d; want %d, the old cluster's first after the backup", again.identities[0], after.identities[0])
		}
	})
}
