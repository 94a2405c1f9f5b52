package main

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A start's set-up calls (databases, keys, opaque collections) go to the leader, and a loaded
// machine may hold an election while they run: the call is then refused UNAVAILABLE, maybe
// after the cluster applied it, and is made again.

// setUpRetryPause is the pause between the attempts of a set-up call.
const setUpRetryPause = 100 * time.Millisecond

// whileNoLeader makes call until it succeeds, fails otherwise than for want of a leader
// (UNAVAILABLE, or its attempt's deadline), or ctx ends. It reports whether the last attempt
// was a retry, so that a caller takes the refusal an earlier attempt's effect causes
// (ALREADY_EXISTS) as its success only then.
func whileNoLeader(ctx context.Context, call func(ctx context.Context) error) (retried bool, err error) {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, rpcTimeout)
		err = call(actx)
		cancel()
		if c := status.Code(err); c != codes.Unavailable && c != codes.DeadlineExceeded {
			return attempt > 0, err
		}
		select {
		case <-ctx.Done():
			return attempt > 0, err
		case <-time.After(setUpRetryPause):
		}
	}
}
