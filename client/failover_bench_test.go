package client

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The failover path's own allocations per call, without a region, over five nodes (the order of
// four or fewer fits the 32 bytes the compiler keeps on the stack for a small slice, so only a
// larger cluster shows an order built per call): a call the node it starts at answers, and a
// call whose first node refuses UNAVAILABLE so that the next one answers (the start moves to it,
// so every call fails over once). The refusal is made once, outside the loop.
func BenchmarkFailoverCallWithoutRegion(b *testing.B) {
	ctx := context.Background()
	b.Run("first-answers", func(b *testing.B) {
		fo := inProcessFailover(5)
		answer := func(context.Context, *node) error { return nil }
		b.ReportAllocs()
		for b.Loop() {
			if err := fo.call(ctx, answer); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("first-refuses", func(b *testing.B) {
		fo := inProcessFailover(5)
		refusal := status.Error(codes.Unavailable, "bench: down")
		var attempts int
		refuseFirst := func(context.Context, *node) error {
			attempts++
			if attempts%2 == 1 {
				return refusal
			}
			return nil
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := fo.call(ctx, refuseFirst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A whole call without a region, Generate of a server-side ID against five fake nodes on loopback:
// the failover path's share of what one call allocates, gRPC's and the fake server's included
// (allocs/op counts every goroutine's).
func BenchmarkGenerateWithoutRegion(b *testing.B) {
	_, _, addrs := fakeCluster(b, "A", "B", "C", "D", "E")
	c, err := Dial(context.Background(), addrs, WithNodesInOrder())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close(context.Background()) })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Generate(ctx, "users/", 1); err != nil {
			b.Fatal(err)
		}
	}
}
