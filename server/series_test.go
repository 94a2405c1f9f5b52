package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

func mustCreateSeries(t *testing.T, ctx context.Context, c idnodev1.SeriesServiceClient, req *idnodev1.CreateSeriesRequest) *idnodev1.Series {
	t.Helper()
	resp, err := c.CreateSeries(ctx, req)
	if err != nil {
		t.Fatalf("CreateSeries(%s): %v", req.GetName(), err)
	}
	return resp.GetSeries()
}

func mustIssue(t *testing.T, ctx context.Context, c idnodev1.SeriesServiceClient, series, requestID string) *idnodev1.SeriesEntry {
	t.Helper()
	resp, err := c.Issue(ctx, &idnodev1.IssueRequest{Series: series, RequestId: requestID, DocumentHash: "ab12",
		Fields: []*idnodev1.SeriesField{{Key: "total", Value: "10.00"}, {Key: "customer", Value: "c-1"}}})
	if err != nil {
		t.Fatalf("Issue(%s, %s): %v", series, requestID, err)
	}
	return resp.GetEntry()
}

func journalOf(t *testing.T, ctx context.Context, c idnodev1.SeriesServiceClient, series string) []*idnodev1.SeriesEntry {
	t.Helper()
	stream, err := c.Journal(ctx, &idnodev1.JournalRequest{Series: series})
	if err != nil {
		t.Fatal(err)
	}
	var out []*idnodev1.SeriesEntry
	for {
		e, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Journal(%s): %v", series, err)
		}
		out = append(out, e)
	}
}

// Every series call works through a follower as through the leader: the follower checks it
// and the leader runs it; a retry answers the first attempt; the journal and its check agree.
func TestSeriesThroughAFollower(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		follower := without(c.Tags(), leader)[0]
		viaFollower := idnodev1.NewSeriesServiceClient(c.Dial(t, follower))
		viaLeader := idnodev1.NewSeriesServiceClient(c.Dial(t, leader))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		s := mustCreateSeries(t, ctx, viaFollower, &idnodev1.CreateSeriesRequest{Name: "INV", Format: "INV-{year}-{n:06}",
			Period: idnodev1.SeriesPeriod_SERIES_PERIOD_YEAR, Actor: "someone-else"})
		if s.GetCreatedBy() != "loopback" {
			t.Errorf("created_by = %q; want loopback: the node names the caller, not the request", s.GetCreatedBy())
		}
		if _, err := viaLeader.CreateSeries(ctx, &idnodev1.CreateSeriesRequest{Name: "inv", Format: "X{n}"}); status.Code(err) != codes.AlreadyExists {
			t.Errorf("CreateSeries(inv) again = %v, want ALREADY_EXISTS", err)
		}

		first := mustIssue(t, ctx, viaFollower, "inv", "doc-1")
		second := mustIssue(t, ctx, viaLeader, "INV", "doc-2")
		if first.GetNumber() != 1 || second.GetNumber() != 2 || first.GetId() == second.GetId() {
			t.Fatalf("numbers %s, %s; want 1 and 2", first.GetId(), second.GetId())
		}
		if again := mustIssue(t, ctx, viaLeader, "inv", "doc-1"); again.GetSeq() != first.GetSeq() || again.GetId() != first.GetId() {
			t.Errorf("retry of doc-1 answered %s (entry %d), want %s (entry %d)", again.GetId(), again.GetSeq(), first.GetId(), first.GetSeq())
		}
		_, err := viaFollower.Issue(ctx, &idnodev1.IssueRequest{Series: "inv", RequestId: "doc-1", DocumentHash: "ffff"})
		if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.RequestIDReused {
			t.Errorf("doc-1 again for another document = %v, want INVALID_ARGUMENT %s", err, reason.RequestIDReused)
		}
		if _, err := viaFollower.Issue(ctx, &idnodev1.IssueRequest{Series: "inv", DocumentHash: "ab"}); status.Code(err) != codes.InvalidArgument {
			t.Errorf("Issue without request_id = %v, want INVALID_ARGUMENT", err)
		}
		if _, err := viaFollower.Issue(ctx, &idnodev1.IssueRequest{Series: "nope", RequestId: "x"}); status.Code(err) != codes.NotFound {
			t.Errorf("Issue in an unknown series = %v, want NOT_FOUND", err)
		}

		voided, err := viaFollower.Void(ctx, &idnodev1.VoidRequest{Series: "inv", Period: first.GetPeriod(), Number: 1,
			Reason: "customer cancelled", Correcting: "CN-1", RequestId: "void-1"})
		if err != nil {
			t.Fatalf("Void(1): %v", err)
		}
		if voided.GetEntry().GetKind() != idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED || voided.GetEntry().GetId() != first.GetId() {
			t.Errorf("Void answered %v", voided.GetEntry())
		}
		if _, err := viaLeader.Void(ctx, &idnodev1.VoidRequest{Series: "inv", Period: first.GetPeriod(), Number: 1, Reason: "again", RequestId: "void-2"}); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("second void of 1 = %v, want FAILED_PRECONDITION", err)
		}
		if _, err := viaLeader.Void(ctx, &idnodev1.VoidRequest{Series: "inv", Period: first.GetPeriod(), Number: 3, Reason: "skip", RequestId: "void-3"}); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("void of the next number of a gapless series = %v, want FAILED_PRECONDITION", err)
		}

		entries := journalOf(t, ctx, viaFollower, "inv")
		if len(entries) != 3 {
			t.Fatalf("journal has %d entries, want 3 (two issued, one voided)", len(entries))
		}
		for i, e := range entries {
			if e.GetSeq() != uint64(i+1) || (i > 0 && e.GetPrevHash() != entries[i-1].GetHash()) {
				t.Errorf("entry %d: seq %d, prev_hash %s; want seq %d chained to the one before", i, e.GetSeq(), e.GetPrevHash(), i+1)
			}
		}
		if entries[0].GetFields()[0].GetKey() != "customer" {
			t.Errorf("fields kept as %v, want sorted by key", entries[0].GetFields())
		}
		v, err := viaFollower.VerifySeries(ctx, &idnodev1.VerifySeriesRequest{Series: "inv"})
		if err != nil || !v.GetOk() || v.GetIssued() != 2 || v.GetVoided() != 1 {
			t.Errorf("VerifySeries = %v, %v; want ok with 2 issued and 1 voided", v, err)
		}
		list, err := viaFollower.ListSeries(ctx, &idnodev1.ListSeriesRequest{})
		if err != nil || len(list.GetSeries()) != 1 || list.GetSeries()[0].GetLastNumber() != 2 || list.GetSeries()[0].GetHeadHash() != entries[2].GetHash() {
			t.Errorf("ListSeries = %v, %v; want inv at number 2, its head the last entry", list, err)
		}
	})
}

// Many callers on every node issue from one series: each gets its own number, and the numbers
// are 1..N with none missing and none twice, also when the leader changes meanwhile and callers
// retry.
func TestSeriesIssueUnderContention(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		c.waitLeader(convergeTimeout, c.Tags()...)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		mustCreateSeries(t, ctx, idnodev1.NewSeriesServiceClient(c.Dial(t, c.Tags()[0])), &idnodev1.CreateSeriesRequest{Name: "hot", Format: "H{n}"})

		const callers, each = 12, 20
		var mu sync.Mutex
		seen := map[int64]string{}
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		for g := range callers {
			cl := idnodev1.NewSeriesServiceClient(c.Dial(t, c.Tags()[g%len(c.Tags())]))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					id := fmt.Sprintf("doc-%d-%d", g, i)
					var resp *idnodev1.IssueResponse
					err := retryUnavailable(func() (err error) {
						resp, err = cl.Issue(ctx, &idnodev1.IssueRequest{Series: "hot", RequestId: id})
						return err
					})
					if err != nil {
						errs <- fmt.Errorf("%s: %w", id, err)
						return
					}
					mu.Lock()
					if other, dup := seen[resp.GetEntry().GetNumber()]; dup {
						errs <- fmt.Errorf("number %d went to %s and %s", resp.GetEntry().GetNumber(), other, id)
					}
					seen[resp.GetEntry().GetNumber()] = id
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for n := int64(1); n <= callers*each; n++ {
			if _, ok := seen[n]; !ok {
				t.Errorf("number %d was never issued (of %d)", n, callers*each)
			}
		}
	})
}

// A node cut off from the majority refuses Issue with UNAVAILABLE, NO_QUORUM, as it refuses
// identities.
func TestSeriesMinorityRefusesIssue(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		follower := without(c.Tags(), leader)[0]
		fc := idnodev1.NewSeriesServiceClient(c.Dial(t, follower))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		mustCreateSeries(t, ctx, fc, &idnodev1.CreateSeriesRequest{Name: "inv", Format: "I{n}"})
		mustIssue(t, ctx, fc, "inv", "before")

		c.Partition([]string{follower}, without(c.Tags(), follower))
		_, err := fc.Issue(ctx, &idnodev1.IssueRequest{Series: "inv", RequestId: "cut-off"})
		if status.Code(err) == codes.Unavailable && reason.Of(err) == reason.OutcomeUnknown {
			// The relay went out on the connection the partition was cutting, so nobody can say
			// whether the leader took it; the next call finds the leader unreachable.
			_, err = fc.Issue(ctx, &idnodev1.IssueRequest{Series: "inv", RequestId: "cut-off"})
		}
		if status.Code(err) != codes.Unavailable || reason.Of(err) != reason.NoQuorum {
			t.Fatalf("Issue on isolated follower %s = %v, want UNAVAILABLE %s", follower, err, reason.NoQuorum)
		}
		c.Heal()
		waitFor(t, "Issue after the heal", convergeTimeout, func() (bool, string) {
			resp, err := fc.Issue(ctx, &idnodev1.IssueRequest{Series: "inv", RequestId: "cut-off"})
			if err != nil {
				return false, err.Error()
			}
			return resp.GetEntry().GetNumber() == 2, fmt.Sprintf("got number %d, want 2", resp.GetEntry().GetNumber())
		})
	})
}
