package server_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/flake"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/server"
)

func mustAcquireWorker(t *testing.T, ctx context.Context, c idnodev1.IdServiceClient, holder string, bits int32) *idnodev1.WorkerLease {
	t.Helper()
	wl, err := c.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Holder: holder, WorkerBits: bits, LeaseMs: 5000})
	if err != nil {
		t.Fatalf("AcquireWorker(%s): %v", holder, err)
	}
	return wl
}

// mustNumeric mints count numeric IDs on c and returns them as numbers.
func mustNumeric(t *testing.T, ctx context.Context, c idnodev1.IdServiceClient, count int64) []int64 {
	t.Helper()
	resp, err := c.Generate(ctx, &idnodev1.GenerateRequest{Numeric: true, Count: count})
	if err != nil {
		t.Fatalf("Generate(numeric, %d): %v", count, err)
	}
	return parseIDs(t, resp.GetIds())
}

func parseIDs(t *testing.T, ids []string) []int64 {
	t.Helper()
	out := make([]int64, len(ids))
	for i, s := range ids {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("ID %q is not a decimal int64: %v", s, err)
		}
		out[i] = v
	}
	return out
}

func strictlyIncreasing(ids []int64) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return false
		}
	}
	return true
}

// Worker lease calls through a follower reach the leader. In a 1-bit layout (two workers): a
// worker released early, its high-water still ahead, is passed over for the never-used one;
// once none is left it goes to the next holder with a higher epoch and a floor above the last
// holder's range, and the old epoch is fenced.
func TestWorkerLeasesThroughAFollower(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		follower := without(c.Tags(), leader)[0]
		viaFollower := idnodev1.NewIdServiceClient(c.Dial(t, follower))
		viaLeader := idnodev1.NewIdServiceClient(c.Dial(t, leader))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		first := mustAcquireWorker(t, ctx, viaFollower, "app-1", 1)
		if first.GetWorker() != 0 || first.GetEpoch() != 1 || first.GetHolder() != "app-1" || first.GetMaxMs() <= first.GetMinMs() {
			t.Fatalf("first lease %v; want worker 0 epoch 1 of app-1 with a range", first)
		}
		renewed, err := viaLeader.RenewWorker(ctx, &idnodev1.RenewWorkerRequest{Worker: 0, Epoch: 1, LeaseMs: 10000})
		if err != nil || renewed.GetExpiresAtMs() < first.GetExpiresAtMs() || renewed.GetMaxMs() < first.GetMaxMs() {
			t.Fatalf("RenewWorker = %v, %v; want the lease extended", renewed, err)
		}
		if _, err := viaFollower.ReleaseWorker(ctx, &idnodev1.ReleaseWorkerRequest{Worker: 0, Epoch: 1}); err != nil {
			t.Fatalf("ReleaseWorker: %v", err)
		}
		second := mustAcquireWorker(t, ctx, viaFollower, "app-2", 1)
		if second.GetWorker() != 1 || second.GetEpoch() != 1 || second.GetMinMs() >= renewed.GetMaxMs() {
			t.Fatalf("after the release: %v; want the never-used worker 1, epoch 1, minting from now (below worker 0's high-water %d)", second, renewed.GetMaxMs())
		}
		third := mustAcquireWorker(t, ctx, viaFollower, "app-3", 1)
		if third.GetWorker() != 0 || third.GetEpoch() != 2 || third.GetMinMs() < renewed.GetMaxMs() {
			t.Fatalf("with no never-used worker left: %v; want worker 0 epoch 2 minting above %d", third, renewed.GetMaxMs())
		}
		if _, err := viaFollower.RenewWorker(ctx, &idnodev1.RenewWorkerRequest{Worker: 0, Epoch: 1, LeaseMs: 5000}); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("RenewWorker of the released epoch = %v; want FAILED_PRECONDITION (fenced)", err)
		}
		var listed []*idnodev1.WorkerLease
		for token := ""; ; {
			page, err := viaFollower.ListWorkers(ctx, &idnodev1.ListWorkersRequest{PageSize: 1, PageToken: token})
			if err != nil {
				t.Fatalf("ListWorkers: %v", err)
			}
			listed = append(listed, page.GetWorkers()...)
			if token = page.GetNextPageToken(); token == "" || len(listed) > 2 {
				break
			}
		}
		if len(listed) != 2 || listed[0].GetHolder() != "app-3" || listed[1].GetWorker() != second.GetWorker() || listed[1].GetHolder() != "app-2" {
			t.Errorf("ListWorkers by pages of 1: %v; want app-3's worker 0 and app-2's worker 1", listed)
		}
		if _, err := viaFollower.ListWorkers(ctx, &idnodev1.ListWorkersRequest{PageToken: "bm9wZQ"}); status.Code(err) != codes.InvalidArgument {
			t.Errorf("ListWorkers with a made-up page token = %v; want INVALID_ARGUMENT", err)
		}
		if _, err := viaFollower.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{WorkerBits: 12, LeaseMs: 5000}); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("AcquireWorker in another layout = %v; want FAILED_PRECONDITION", err)
		}
		if _, err := viaFollower.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{WorkerBits: 1, LeaseMs: 10}); status.Code(err) != codes.InvalidArgument {
			t.Errorf("AcquireWorker of 10 ms = %v; want INVALID_ARGUMENT", err)
		}
	})
}

// Two nodes mint numeric IDs under two workers: all distinct, each node's increasing.
func TestNumericGenerateOnTwoNodes(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		follower := without(c.Tags(), leader)[0]
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		seen := make(map[int64]bool)
		workers := make(map[uint64]string)
		for _, tag := range []string{leader, follower} {
			ids := idnodev1.NewIdServiceClient(c.Dial(t, tag))
			var all []int64
			for range 5 {
				all = append(all, mustNumeric(t, ctx, ids, 200)...)
			}
			if !strictlyIncreasing(all) {
				t.Errorf("node %s: IDs not strictly increasing", tag)
			}
			for _, id := range all {
				if seen[id] {
					t.Fatalf("ID %d minted twice", id)
				}
				seen[id] = true
				p, err := flake.DefaultLayout().Decompose(id)
				if err != nil {
					t.Fatal(err)
				}
				if other, ok := workers[p.Worker]; ok && other != tag {
					t.Fatalf("worker %d minted on nodes %s and %s", p.Worker, other, tag)
				}
				workers[p.Worker] = tag
			}
		}
		if _, err := idnodev1.NewIdServiceClient(c.Dial(t, leader)).Generate(ctx, &idnodev1.GenerateRequest{Numeric: true, Id: "users|"}); status.Code(err) != codes.InvalidArgument {
			t.Errorf("Generate(numeric, users|) = %v; want INVALID_ARGUMENT", err)
		}
	})
}

// A node cut off from the leader mints under its lease until the lease's local end, then
// refuses with NO_QUORUM, before the FSM could give its worker to anyone else; the worker's
// next holder mints strictly above every ID it minted.
func TestNumericPartitionedNodeStopsBeforeItsLeaseLapses(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const lease = 3 * time.Second
		c := newVirtualTestClusterWith(t, 3, func(sc server.Config) server.Config { sc.NumericLease = lease; return sc })
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		cutOff := without(c.Tags(), leader)[0]
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		viaCutOff := idnodev1.NewIdServiceClient(c.Dial(t, cutOff))
		minted := mustNumeric(t, ctx, viaCutOff, 10)

		c.Partition([]string{cutOff}, without(c.Tags(), cutOff))
		var refused error
		for deadline := time.Now().Add(2 * lease); time.Now().Before(deadline); {
			resp, err := viaCutOff.Generate(ctx, &idnodev1.GenerateRequest{Numeric: true})
			if err != nil {
				refused = err
				break
			}
			minted = append(minted, parseIDs(t, resp.GetIds())...)
			// A pause between calls, as a caller's own work makes: a bubble's clock moves only
			// while every goroutine waits, and a loop of calls alone would hold it still.
			time.Sleep(10 * time.Millisecond)
		}
		if status.Code(refused) != codes.Unavailable || reason.Of(refused) != reason.NoQuorum {
			t.Fatalf("the cut-off node after its lease: %v; want UNAVAILABLE NO_QUORUM", refused)
		}
		// The cut-off node's renewals stopped reaching the leader: its lease's end there is final.
		ws, err := c.Node(leader).Node.FSM().Workers("")
		if err != nil || len(ws) != 1 {
			t.Fatalf("workers on the leader: %+v, %v; want the cut-off node's one", ws, err)
		}
		if !strictlyIncreasing(minted) || len(minted) < 11 {
			t.Fatalf("the cut-off node minted %d IDs, increasing %v; want more than 10, increasing", len(minted), strictlyIncreasing(minted))
		}
		// The time in its last ID is when the node minted it, by the clock the lease is kept on;
		// when the test heard the refusal says nothing, as a loaded machine delivers it late.
		last, err := flake.DefaultLayout().Decompose(slices.Max(minted))
		if err != nil {
			t.Fatal(err)
		}
		if expiresAtMs := ws[0].ExpiresAtMs; last.Time.UnixMilli() >= expiresAtMs {
			t.Errorf("the cut-off node minted at %d, at or past its lease's end %d", last.Time.UnixMilli(), expiresAtMs)
		}

		viaLeader := idnodev1.NewIdServiceClient(c.Dial(t, leader))
		var next *idnodev1.WorkerLease
		waitFor(t, "the lapsed worker going to a new holder", convergeTimeout, func() (bool, string) {
			wl, err := viaLeader.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Holder: "next", WorkerBits: 10, LeaseMs: 5000})
			if err != nil {
				return false, err.Error()
			}
			if wl.GetWorker() != 0 {
				_, _ = viaLeader.ReleaseWorker(ctx, &idnodev1.ReleaseWorkerRequest{Worker: wl.GetWorker(), Epoch: wl.GetEpoch()})
				return false, "got another worker"
			}
			next = wl
			return true, ""
		})
		if next.GetEpoch() != 2 || last.Time.UnixMilli() > next.GetMinMs() {
			t.Errorf("the next holder of worker 0: epoch %d mints above %d; the cut-off node minted at %d", next.GetEpoch(), next.GetMinMs(), last.Time.UnixMilli())
		}
	})
}

// Explain answers from the ID's text alone, on a node cut off from the leader too.
func TestExplainOnACutOffNode(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		cutOff := without(c.Tags(), leader)[0]
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ids := idnodev1.NewIdServiceClient(c.Dial(t, cutOff))
		numeric := mustNumeric(t, ctx, ids, 1)[0]
		parts, err := flake.DefaultLayout().Decompose(numeric)
		if err != nil {
			t.Fatal(err)
		}
		c.Partition([]string{cutOff}, without(c.Tags(), cutOff))
		for _, c := range []struct {
			id   string
			want *idnodev1.ExplainResponse
		}{
			{strconv.FormatInt(numeric, 10), &idnodev1.ExplainResponse{Kind: "numeric", Encoding: "decimal", Value: numeric}},
			{flake.EncodeBase62(numeric), &idnodev1.ExplainResponse{Kind: "numeric", Encoding: "base62", Value: numeric}},
			{flake.EncodeCrockford(numeric), &idnodev1.ExplainResponse{Kind: "numeric", Encoding: "crockford", Value: numeric}},
			{"users/0000000000000000001-A", &idnodev1.ExplainResponse{Kind: "server-side", Prefix: "users/", Number: "0000000000000000001", NodeTag: "A"}},
			{"orders/12-B", &idnodev1.ExplainResponse{Kind: "hilo", Prefix: "orders/", Number: "12", NodeTag: "B"}},
			{"users/1", &idnodev1.ExplainResponse{Kind: "identity", Prefix: "users/", Number: "1"}},
			{"0190b6a3-8a6b-7c1e-9b2a-3c4d5e6f7a8b", &idnodev1.ExplainResponse{Kind: "guid", GuidVersion: 7}},
			{"users/ayende", &idnodev1.ExplainResponse{Kind: "semantic"}},
		} {
			id, want := c.id, c.want
			got, err := ids.Explain(ctx, &idnodev1.ExplainRequest{Id: id})
			if err != nil {
				t.Fatalf("Explain(%q): %v", id, err)
			}
			if got.GetKind() != want.GetKind() || got.GetEncoding() != want.GetEncoding() || got.GetValue() != want.GetValue() ||
				got.GetPrefix() != want.GetPrefix() || got.GetNumber() != want.GetNumber() || got.GetNodeTag() != want.GetNodeTag() ||
				got.GetGuidVersion() != want.GetGuidVersion() || want.GetKind() == "numeric" && got.GetWorker() != uint32(parts.Worker) {
				t.Errorf("Explain(%q) = %v; want %v", id, got, want)
			}
			if len(got.GetNotes()) == 0 {
				t.Errorf("Explain(%q) says nothing of the database", id)
			}
		}
		for _, id := range []string{"", `a\b`} {
			if _, err := ids.Explain(ctx, &idnodev1.ExplainRequest{Id: id}); status.Code(err) != codes.InvalidArgument {
				t.Errorf("Explain(%q) = %v; want INVALID_ARGUMENT", id, err)
			}
		}
	})
}

// A stopping node gives its worker back, so the worker's next holder need not wait for the
// lease to lapse.
func TestNumericLeaseReleasedOnClose(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		stopping := without(c.Tags(), leader)[0]
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		mustNumeric(t, ctx, idnodev1.NewIdServiceClient(c.Dial(t, stopping)), 1)
		tn := c.Node(stopping)
		if err := tn.running.Close(); err != nil {
			t.Fatalf("stop node %s: %v", stopping, err)
		}
		tn.running = nil // stopped: the cleanup leaves it alone
		ws, err := c.Node(leader).Node.FSM().Workers("")
		if now := time.Now().UnixMilli(); err != nil || len(ws) != 1 || ws[0].ExpiresAtMs > now {
			t.Errorf("after node %s stopped: workers %+v, %v; want its one lease ended by %d", stopping, ws, err, now)
		}
	})
}
