package client

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// inProcessFailover is a client without a region over n nodes that no call reaches: the
// attempts given to it answer in process, so what a test sees is the failover path alone.
func inProcessFailover(n int) *failover {
	fo := &failover{backoff: Backoff{Initial: 1, Max: 1, Multiplier: 1}, sleep: sleepCtx, failedAt: make([]atomic.Int64, n), now: time.Now}
	for range n {
		fo.nodes = append(fo.nodes, &node{})
	}
	return fo
}

// Without a region a call takes the nodes in turn from its start, round after round, and the
// next call starts at the node that answered, unless that was the start itself (a leader
// call's start is the leader, not the node calls start at).
func TestFailoverWithoutRegionTakesTheNodesInTurn(t *testing.T) {
	fo := inProcessFailover(5)
	fo.backoff.MaxAttempts = 7
	refusal := status.Error(codes.Unavailable, "test: down")
	var tried []int64
	refuseAll := func(_ context.Context, n *node) error {
		tried = append(tried, fo.indexOf(n))
		return refusal
	}
	if err := fo.callFrom(context.Background(), 3, refuseAll); err == nil {
		t.Fatal("callFrom with every node down succeeded")
	}
	if want := []int64{3, 4, 0, 1, 2, 3, 4}; !slices.Equal(tried, want) {
		t.Fatalf("nodes tried from 3 = %v; want %v", tried, want)
	}
	answerAt := func(i int64) func(context.Context, *node) error {
		return func(_ context.Context, n *node) error {
			if fo.indexOf(n) != i {
				return refusal
			}
			return nil
		}
	}
	fo.preferred.Store(4)
	if err := fo.call(context.Background(), answerAt(1)); err != nil {
		t.Fatal(err)
	}
	if got := fo.preferred.Load(); got != 1 {
		t.Fatalf("after node 1 answered a call started at 4, calls start at %d; want 1", got)
	}
	if err := fo.callFrom(context.Background(), 2, answerAt(2)); err != nil {
		t.Fatal(err)
	}
	if got := fo.preferred.Load(); got != 1 {
		t.Fatalf("after the start of a call, node 2, answered it, calls start at %d; want still 1", got)
	}
}

// A call without a region allocates nothing of its own when its first node answers, whatever
// the number of nodes: routing by region must cost only the clients that ask for it.
func TestFailoverWithoutRegionAllocatesNothing(t *testing.T) {
	answer := func(context.Context, *node) error { return nil }
	ctx := context.Background()
	for _, n := range []int{1, 3, 5, 9} {
		fo := inProcessFailover(n)
		if got := testing.AllocsPerRun(100, func() { _ = fo.callFrom(ctx, int64(n-1), answer) }); got != 0 {
			t.Errorf("a call over %d nodes allocates %v times; want none", n, got)
		}
		if got := testing.AllocsPerRun(100, func() { _ = fo.call(ctx, answer) }); got != 0 {
			t.Errorf("a call over %d nodes allocates %v times; want none", n, got)
		}
	}
}
