package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/reason"
)

// A live node's refusal and two dead nodes: the refusal, not the connection refusal of the
// dead node tried last.
var (
	noQuorum = reason.Error(codes.Unavailable, reason.NoQuorum, "test: no quorum")
	refused  = status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`)
)

// leaderAliveFollowersDead refuses NO_QUORUM on node 0 and cannot reach the others.
func leaderAliveFollowersDead(fo *failover) func(context.Context, *node) error {
	return func(_ context.Context, n *node) error {
		if fo.indexOf(n) == 0 {
			return noQuorum
		}
		return refused
	}
}

// When every node fails, the error carries the live node's refusal, whichever node was tried
// last, with its code and reason.
func TestAllNodesFailedCarriesTheLiveNodesRefusal(t *testing.T) {
	fo := inProcessFailover(3)
	fo.backoff.MaxAttempts = 6
	err := fo.callFrom(context.Background(), 0, leaderAliveFollowersDead(fo))
	var nf *NodesFailedError
	if !errors.As(err, &nf) {
		t.Fatalf("error %v (%T); want a *NodesFailedError", err, err)
	}
	if code, why := status.Code(err), reason.Of(err); code != codes.Unavailable || why != reason.NoQuorum {
		t.Fatalf("code %v, reason %q; want Unavailable, NO_QUORUM: %v", code, why, err)
	}
	if !errors.Is(err, noQuorum) {
		t.Errorf("errors.Is does not find the refusal in %v", err)
	}
}

// With no refusal at all (every node down), the last attempt's error is what the call says.
func TestAllNodesDownCarriesTheTransportError(t *testing.T) {
	fo := inProcessFailover(2)
	fo.backoff.MaxAttempts = 4
	err := fo.callFrom(context.Background(), 0, func(context.Context, *node) error { return refused })
	if code, why := status.Code(err), reason.Of(err); code != codes.Unavailable || why != "" {
		t.Fatalf("code %v, reason %q; want Unavailable and none: %v", code, why, err)
	}
}

// When the caller's deadline ends the call, the code is DEADLINE_EXCEEDED and the refusal
// that kept it from succeeding is still its reason, whether the deadline ended during an
// attempt or during the backoff; a cancelled call says CANCELLED the same way.
func TestCallersDeadlineKeepsTheRefusal(t *testing.T) {
	for _, tc := range []struct {
		name      string
		inBackoff bool
		cancel    bool
		want      codes.Code
	}{
		{"deadline during an attempt", false, false, codes.DeadlineExceeded},
		{"deadline during the backoff", true, false, codes.DeadlineExceeded},
		{"cancelled during an attempt", false, true, codes.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fo := inProcessFailover(3)
			fo.callTimeout = time.Hour // the caller's deadline comes first
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			if !tc.cancel {
				ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
			}
			defer cancel()
			refuse := leaderAliveFollowersDead(fo)
			attempts := 0
			if tc.inBackoff {
				fo.sleep = func(ctx context.Context, _ time.Duration) error {
					<-ctx.Done() // the deadline ends while the client waits for the next round
					return ctx.Err()
				}
			}
			err := fo.callFrom(ctx, 0, func(ctx context.Context, n *node) error {
				attempts++
				if attempts == 5 {
					if tc.cancel {
						cancel()
					}
					<-ctx.Done() // the call's deadline (or cancel) ends this attempt
					return status.FromContextError(ctx.Err()).Err()
				}
				return refuse(ctx, n)
			})
			if code, why := status.Code(err), reason.Of(err); code != tc.want || why != reason.NoQuorum {
				t.Fatalf("code %v, reason %q; want %v, NO_QUORUM: %v", code, why, tc.want, err)
			}
			if !errors.Is(err, ctx.Err()) || !errors.Is(err, noQuorum) {
				t.Errorf("errors.Is does not find both %v and the refusal in %v", ctx.Err(), err)
			}
		})
	}
}
