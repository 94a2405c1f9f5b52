package server_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// backupOf streams a backup of one database of the cluster behind conn.
func backupOf(t *testing.T, ctx context.Context, c idnodev1.ClusterServiceClient, database string) []byte {
	t.Helper()
	stream, err := c.Backup(ctx, &idnodev1.BackupRequest{Database: database})
	if err != nil {
		t.Fatal(err)
	}
	var data []byte
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return data
		}
		if err != nil {
			t.Fatalf("Backup: %v", err)
		}
		data = append(data, chunk.GetData()...)
	}
}

func restoreInto(ctx context.Context, c idnodev1.ClusterServiceClient, data []byte) (*idnodev1.RestoreResponse, error) {
	stream, err := c.Restore(ctx)
	if err != nil {
		return nil, err
	}
	if err := stream.Send(&idnodev1.RestoreChunk{Data: data}); err != nil {
		return nil, err
	}
	return stream.CloseAndRecv()
}

func listSeries(t *testing.T, ctx context.Context, c idnodev1.SeriesServiceClient) *idnodev1.ListSeriesResponse {
	t.Helper()
	resp, err := c.ListSeries(ctx, &idnodev1.ListSeriesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// A backup carries the series journals to another cluster: the same series and journal there,
// and Issue continues with the next number. Restored again, it adds nothing; a backup whose
// series went another way than the cluster's since is refused, naming the series.
func TestSeriesBackupAndRestore(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		from, to := newVirtualTestCluster(t, 1), newVirtualTestCluster(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		fromSeries := idnodev1.NewSeriesServiceClient(from.Dial(t, "A"))
		toSeries := idnodev1.NewSeriesServiceClient(to.Dial(t, "A"))
		fromCluster := idnodev1.NewClusterServiceClient(from.Dial(t, "A"))
		toCluster := idnodev1.NewClusterServiceClient(to.Dial(t, "A"))

		mustCreateSeries(t, ctx, fromSeries, &idnodev1.CreateSeriesRequest{Name: "INV", Format: "INV-{year}-{n:06}",
			Period: idnodev1.SeriesPeriod_SERIES_PERIOD_YEAR})
		for _, id := range []string{"doc-1", "doc-2", "doc-3"} {
			mustIssue(t, ctx, fromSeries, "INV", id)
		}
		if _, err := fromSeries.Void(ctx, &idnodev1.VoidRequest{Series: "INV", Period: journalOf(t, ctx, fromSeries, "INV")[1].GetPeriod(),
			Number: 2, Reason: "issued twice", RequestId: "void-2"}); err != nil {
			t.Fatal(err)
		}

		// The database's backup: the whole cluster's would carry node tag A, which the other
		// cluster's node holds.
		data := backupOf(t, ctx, fromCluster, "default")
		resp, err := restoreInto(ctx, toCluster, data)
		if err != nil {
			t.Fatalf("Restore: %v", err)
		}
		if resp.GetSeries() != 1 || resp.GetSeriesEntriesRestored() != 4 {
			t.Fatalf("Restore answered %v; want 1 series, 4 entries restored", resp)
		}
		if got, want := listSeries(t, ctx, toSeries), listSeries(t, ctx, fromSeries); !proto.Equal(got, want) {
			t.Fatalf("ListSeries after the restore:\n got %v\nwant %v", got, want)
		}
		got, want := journalOf(t, ctx, toSeries, "INV"), journalOf(t, ctx, fromSeries, "INV")
		if len(got) != len(want) {
			t.Fatalf("the journal has %d entries after the restore, want %d", len(got), len(want))
		}
		for i := range want {
			if !proto.Equal(got[i], want[i]) {
				t.Fatalf("entry %d after the restore:\n got %v\nwant %v", i+1, got[i], want[i])
			}
		}
		if v, err := toSeries.VerifySeries(ctx, &idnodev1.VerifySeriesRequest{Series: "INV"}); err != nil || !v.GetOk() {
			t.Fatalf("VerifySeries after the restore = %v, %v", v, err)
		}
		if next := mustIssue(t, ctx, toSeries, "INV", "doc-4"); next.GetNumber() != 4 || next.GetSeq() != 5 {
			t.Fatalf("the first issue after the restore is %s (seq %d), want number 4, seq 5", next.GetId(), next.GetSeq())
		}

		if again, err := restoreInto(ctx, toCluster, data); err != nil || again.GetSeriesEntriesRestored() != 0 {
			t.Fatalf("the same restore again = %v, %v; want nothing restored", again, err)
		}
		mustIssue(t, ctx, fromSeries, "INV", "another-doc-4")
		_, err = restoreInto(ctx, toCluster, backupOf(t, ctx, fromCluster, "default"))
		if status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("a restore of a series that went another way = %v, want FAILED_PRECONDITION", err)
		}
	})
}

// A restore and the reads after it go through a follower as they do through the leader: the
// follower relays the backup's chunks, and the journal's entries back, by the calls' own names.
func TestSeriesRestoreThroughAFollower(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		from, to := newVirtualTestCluster(t, 1), newVirtualTestCluster(t, 3)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		fromSeries := idnodev1.NewSeriesServiceClient(from.Dial(t, "A"))
		mustCreateSeries(t, ctx, fromSeries, &idnodev1.CreateSeriesRequest{Name: "INV", Format: "INV-{n:04}"})
		for _, id := range []string{"doc-1", "doc-2"} {
			mustIssue(t, ctx, fromSeries, "INV", id)
		}
		data := backupOf(t, ctx, idnodev1.NewClusterServiceClient(from.Dial(t, "A")), "default")

		follower := without(to.Tags(), to.waitLeader(convergeTimeout, to.Tags()...))[0]
		resp, err := restoreInto(ctx, idnodev1.NewClusterServiceClient(to.Dial(t, follower)), data)
		if err != nil || resp.GetSeries() != 1 || resp.GetSeriesEntriesRestored() != 2 {
			t.Fatalf("Restore through follower %s = %v, %v; want 1 series, 2 entries restored", follower, resp, err)
		}
		got, want := journalOf(t, ctx, idnodev1.NewSeriesServiceClient(to.Dial(t, follower)), "INV"), journalOf(t, ctx, fromSeries, "INV")
		if len(got) != len(want) {
			t.Fatalf("the journal through the follower has %d entries after the restore, want %d", len(got), len(want))
		}
		for i := range want {
			if !proto.Equal(got[i], want[i]) {
				t.Fatalf("entry %d through the follower:\n got %v\nwant %v", i+1, got[i], want[i])
			}
		}
	})
}
