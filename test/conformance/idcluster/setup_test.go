package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A set-up call refused for want of a leader is made again until it is answered, and the
// caller learns that the answer came from a retry; any other refusal ends it at once.
func TestWhileNoLeaderRetriesOnlyWantOfALeader(t *testing.T) {
	refusals := []error{status.Error(codes.Unavailable, "no quorum"), status.Error(codes.DeadlineExceeded, "slow election")}
	calls := 0
	retried, err := whileNoLeader(context.Background(), func(context.Context) error {
		calls++
		if calls <= len(refusals) {
			return refusals[calls-1]
		}
		return status.Error(codes.AlreadyExists, "database exists")
	})
	if calls != 3 || !retried || status.Code(err) != codes.AlreadyExists {
		t.Fatalf("after %d calls: retried %v, %v; want 3 calls, a retry, ALREADY_EXISTS", calls, retried, err)
	}

	calls = 0
	bad := status.Error(codes.InvalidArgument, "bad name")
	if retried, err := whileNoLeader(context.Background(), func(context.Context) error { calls++; return bad }); calls != 1 || retried || !errors.Is(err, bad) {
		t.Fatalf("a refusal that is not for want of a leader: %d calls, retried %v, %v", calls, retried, err)
	}
}

// Without a leader until its context ends, the call returns the last refusal.
func TestWhileNoLeaderEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*setUpRetryPause)
	defer cancel()
	start := time.Now()
	_, err := whileNoLeader(ctx, func(context.Context) error { return status.Error(codes.Unavailable, "no quorum") })
	if status.Code(err) != codes.Unavailable || ctx.Err() == nil {
		t.Fatalf("returned %v after %v, its context %v", err, time.Since(start), ctx.Err())
	}
}
