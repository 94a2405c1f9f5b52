package server_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// A ReturnHiLo whose answer was lost is retried with the same request_id and answers what its
// first attempt did (returned), not false because the range is no longer the newest: the
// client would log a gap that is not one, and skip returning the tail of the range below.
// Through a follower to the cluster's record (no pools) and to the follower's own pool. The
// request_id is then spent: another return under it is REQUEST_ID_REUSED.
func TestARetriedReturnHiLoAnswersAsItsFirstAttempt(t *testing.T) {
	t.Parallel()
	for _, pools := range []bool{false, true} {
		t.Run(fmt.Sprintf("pools=%v", pools), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newVirtualTestClusterConfigured(t, 3, func(c *node.Config) { c.HiLoPools = pools })
				leader := c.waitLeader(convergeTimeout, c.Tags()...)
				follower := idnodev1.NewIdServiceClient(c.Dial(t, without(c.Tags(), leader)[0]))
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()

				r, err := follower.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
				if err != nil {
					t.Fatal(err)
				}
				ret := &idnodev1.ReturnHiLoRequest{Tag: "orders", End: r.GetHigh(), Last: r.GetLow() + 1, GrantId: r.GetGrantId(), RequestId: "return-1"}
				for attempt := 1; attempt <= 3; attempt++ {
					if resp, err := follower.ReturnHiLo(ctx, ret); err != nil || !resp.GetReturned() {
						t.Fatalf("attempt %d of one ReturnHiLo = %v, %v; want returned, as its first attempt answered", attempt, resp, err)
					}
				}
				other := &idnodev1.ReturnHiLoRequest{Tag: "orders", End: r.GetHigh(), Last: r.GetLow(), GrantId: r.GetGrantId(), RequestId: "return-1"}
				if _, err := follower.ReturnHiLo(ctx, other); status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.RequestIDReused {
					t.Fatalf("another return under a request_id spent = %v; want INVALID_ARGUMENT, REQUEST_ID_REUSED", err)
				}
				if next, err := follower.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"}); err != nil || next.GetLow() != r.GetLow()+2 {
					t.Fatalf("NextHiLo after the return = %v, %v; want low %d: the numbers went back once", next, err, r.GetLow()+2)
				}
			})
		})
	}
}
