package server_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/flake"
)

// stepClock is a clock a test moves by hand.
type stepClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *stepClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

func dialClient(t *testing.T, c *testCluster) *client.Client {
	t.Helper()
	var addrs []string
	for _, tn := range c.Nodes {
		addrs = append(addrs, tn.GRPCAddr)
	}
	cl, err := client.Dial(context.Background(), addrs, client.WithDialOptions(c.DialOptions()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl
}

func mustNumericGenerator(t *testing.T, ctx context.Context, cl *client.Client, opts client.NumericOptions) *client.NumericGenerator {
	t.Helper()
	g, err := cl.NewNumericGenerator(ctx, opts)
	if err != nil {
		t.Fatalf("NewNumericGenerator: %v", err)
	}
	return g
}

// mintN mints n IDs with g, retrying ErrClockBehind (a floor ahead of the clock) for at most
// a few seconds, and checks they increase above after.
func mintN(t *testing.T, g *client.NumericGenerator, n int, after int64) []int64 {
	t.Helper()
	out := make([]int64, 0, n)
	deadline := time.Now().Add(5 * time.Second)
	for len(out) < n {
		id, err := g.Next()
		if errors.Is(err, flake.ErrClockBehind) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // in a bubble, the clock moves only while this waits
			continue
		}
		if err != nil {
			t.Fatalf("Next after %d IDs: %v", len(out), err)
		}
		if id <= after {
			t.Fatalf("ID %d is not above %d", id, after)
		}
		out, after = append(out, id), id
	}
	return out
}

// A client generator through clock steps of an hour either way and a restart with the clock
// stepped back: never an ID at or below one before, never one outside its lease.
func TestNumericGeneratorClockSteps(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		cl := dialClient(t, c)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		clock := &stepClock{}
		opts := client.NumericOptions{Holder: "steps", Lease: 2 * time.Second, Clock: clock.now}
		g := mustNumericGenerator(t, ctx, cl, opts)
		ids := mintN(t, g, 100, 0)

		clock.step(-time.Hour)
		if id, err := g.Next(); !errors.Is(err, flake.ErrClockBehind) {
			t.Fatalf("an hour back: Next = %d, %v; want ErrClockBehind, nothing minted", id, err)
		}
		clock.step(2 * time.Hour)
		if id, err := g.Next(); !errors.Is(err, flake.ErrLeaseExpired) && !errors.Is(err, flake.ErrLeaseExhausted) {
			t.Fatalf("an hour ahead: Next = %d, %v; want the lease over, nothing minted past it", id, err)
		}
		clock.step(-time.Hour)
		ids = append(ids, mintN(t, g, 100, ids[len(ids)-1])...)
		if err := g.Close(ctx); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, err := g.Next(); err == nil {
			t.Fatal("Next after Close minted")
		}

		// A restart whose clock is an hour back mints nothing below the IDs before it: the lease's
		// floor is the cluster's clock, so the generator waits.
		clock.step(-time.Hour)
		back := mustNumericGenerator(t, ctx, cl, opts)
		if id, err := back.Next(); !errors.Is(err, flake.ErrClockBehind) {
			t.Fatalf("restarted an hour back: Next = %d, %v; want ErrClockBehind", id, err)
		}
		if err := back.Close(ctx); err != nil {
			t.Fatal(err)
		}
		// Within the borrow (half a second back) it mints, above everything before.
		clock.step(time.Hour - 500*time.Millisecond)
		again := mustNumericGenerator(t, ctx, cl, opts)
		defer again.Close(ctx)
		mintN(t, again, 100, ids[len(ids)-1])
	})
}

// Two generators handed the same worker over overlapping ticks (a forged lease) mint the same
// IDs; two generators leased by the cluster never share a worker and epoch, and never an ID.
func TestNumericGeneratorsNeedTheFSMsLeases(t *testing.T) {
	t.Parallel()
	forged := flake.Lease{Worker: 1, Epoch: 1, MinTick: -1, MaxTick: flake.DefaultLayout().MaxTick(), ValidUntil: time.Now().Add(time.Minute)}
	fixed := time.Now()
	clock := func() time.Time { return fixed }
	a, err := flake.New(flake.DefaultLayout(), forged, flake.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := flake.New(flake.DefaultLayout(), forged, flake.Options{Clock: clock})
	ia, errA := a.Next()
	ib, errB := b.Next()
	if errA != nil || errB != nil {
		t.Fatalf("forged leases: Next = %v, %v", errA, errB)
	}
	if ia != ib {
		t.Fatalf("forged leases: %d and %d; the collision the FSM prevents did not happen", ia, ib)
	}

	// The cluster in virtual time: the forged leases above are read on the real clock, past
	// the flake epoch, where the bubble starts in 2000.
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		cl := dialClient(t, c)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		gens := []*client.NumericGenerator{
			mustNumericGenerator(t, ctx, cl, client.NumericOptions{Holder: "one"}),
			mustNumericGenerator(t, ctx, cl, client.NumericOptions{Holder: "two"}),
		}
		if la, lb := gens[0].Lease(), gens[1].Lease(); la.Worker == lb.Worker && la.Epoch == lb.Epoch {
			t.Fatalf("two generators share worker %d epoch %d", la.Worker, la.Epoch)
		}
		seen := make(map[int64]bool)
		for _, g := range gens {
			defer g.Close(ctx)
			for _, id := range mintN(t, g, 20000, 0) {
				if seen[id] {
					t.Fatalf("ID %d minted twice", id)
				}
				seen[id] = true
			}
		}
	})
}
