package server_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/flakelease"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// A caller that holds no worker can still name one (ListWorkers shows every worker and epoch)
// and release it: a forged release. The worker then goes to the next holder while its first
// holder, which knows nothing of it, mints on until its next renewal is fenced. The two hold
// the same worker at once, and must still mint no ID in common: the next holder mints only
// above the worker's high-water, which covers the first holder's whole lease. In a 1-bit
// layout with the other worker held, the released worker is the only one to give.
func TestAForgedReleaseSharesNoTimeOfTheWorker(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		cl := dialClient(t, c)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		layout := flake.DefaultLayout()
		layout.WorkerBits = 1
		opts := client.NumericOptions{Layout: layout, Holder: "victim", Lease: 3 * time.Second}
		victim := mustNumericGenerator(t, ctx, cl, opts)
		defer victim.Close(ctx)
		// The bystander's lease outlasts the test, which renews it nowhere: once it lapsed, the
		// next holder could get the bystander's worker instead of the victim's, and the victim,
		// fenced, could lease it and mint on.
		bystander := idnodev1.NewIdServiceClient(c.Dial(t, c.Tags()[0]))
		if err := retryUnavailable(func() error {
			_, err := bystander.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Holder: "bystander", WorkerBits: 1,
				LeaseMs: time.Hour.Milliseconds(), RequestId: "bystander"})
			return err
		}); err != nil {
			t.Fatalf("AcquireWorker(bystander): %v", err)
		}

		// The victim mints from before the forged release until it is refused, 64 IDs a
		// millisecond at most (so a run of seconds stays small), each millisecond from sequence 0:
		// a next holder minting in the same milliseconds would repeat its IDs.
		type minted struct {
			ids []int64
			err error
		}
		victimDone := make(chan minted, 1)
		started := make(chan struct{})
		go func() {
			var m minted
			for {
				id, err := victim.Next()
				if err != nil {
					m.err = err
					victimDone <- m
					return
				}
				if len(m.ids) == 0 {
					close(started)
				}
				m.ids = append(m.ids, id)
				if len(m.ids)%64 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		select {
		case <-started:
		case v := <-victimDone:
			t.Fatalf("the victim minted nothing: %v", v.err)
		}

		// The victim renews every third of its lease, and a renewal that lands between the forged
		// release and the next holder's Acquire takes the released lease back (a lapsed lease
		// nobody took since is renewed as it is): the next holder then finds both workers held.
		// On a loaded machine the two calls can take that long, so the forger releases the
		// victim's lease again until the next holder gets a worker.
		forger := idnodev1.NewIdServiceClient(c.Dial(t, c.Tags()[1]))
		// The next holder's lease is long enough that it never has to renew while it mints: with
		// the victim's 3 s, a loaded machine whose renewals took over a second for two seconds let
		// it lapse in the middle of mintN.
		opts.Holder, opts.Lease = "next", 30*time.Second
		var held flakelease.Grant
		var next *client.NumericGenerator
		releases := 0
		waitFor(t, "the next holder to lease a worker after a forged release", convergeTimeout, func() (bool, string) {
			held = victim.Lease()
			releases++
			_, err := forger.ReleaseWorker(ctx, &idnodev1.ReleaseWorkerRequest{Worker: held.Worker, Epoch: held.Epoch})
			if status.Code(err) == codes.Unavailable {
				return false, fmt.Sprintf("the forged release: %v", err)
			}
			if err != nil {
				t.Fatalf("forged ReleaseWorker of the victim's worker %d epoch %d: %v", held.Worker, held.Epoch, err)
			}
			next, err = cl.NewNumericGenerator(ctx, opts)
			if status.Code(err) == codes.ResourceExhausted {
				return false, fmt.Sprintf("the victim renewed its released lease first: %v", err)
			}
			if err != nil {
				t.Fatalf("NewNumericGenerator(next): %v", err)
			}
			return true, ""
		})
		defer next.Close(ctx)
		if got := next.Lease(); got.Worker != held.Worker || got.Epoch <= held.Epoch {
			t.Fatalf("after the forged release the next holder got worker %d epoch %d; want the victim's worker %d at a later epoch than %d",
				got.Worker, got.Epoch, held.Worker, held.Epoch)
		}
		nextIDs := mintN(t, next, 20000, 0)

		var v minted
		select {
		case v = <-victimDone:
		case <-ctx.Done():
			t.Fatal("the victim was never refused: its renewal should have found its worker fenced")
		}
		if !errors.Is(v.err, client.ErrWorkerLeaseLost) && !errors.Is(v.err, flake.ErrLeaseExpired) {
			t.Errorf("the victim stopped with %v; want its lease lost or expired", v.err)
		}
		if !strictlyIncreasing(v.ids) {
			t.Error("the victim's IDs do not strictly increase")
		}
		seen := make(map[int64]bool, len(v.ids))
		for _, id := range v.ids {
			seen[id] = true
		}
		for _, id := range nextIDs {
			if seen[id] {
				t.Fatalf("ID %d minted by both holders of worker %d (victim: %d IDs, next: %d)", id, held.Worker, len(v.ids), len(nextIDs))
			}
		}
		t.Logf("victim minted %d IDs up to its refusal (%v), the next holder %d after %d forged releases", len(v.ids), v.err, len(nextIDs), releases)
	})
}
