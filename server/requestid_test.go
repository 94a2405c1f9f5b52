package server_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// A request_id over its bound is refused INVALID_ARGUMENT before anything is done, on the
// client port as on every other way in; one at the bound is served. The cluster would keep
// the id in its log and in every replica's table of answers.
func TestALongRequestIDIsRefusedBeforeRaft(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 1)
		c.waitServing(startupTimeout, "A")
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		ids := idnodev1.NewIdServiceClient(c.Dial(t, "A"))

		long := strings.Repeat("r", 257)
		_, err := ids.Claim(ctx, &idnodev1.ClaimRequest{Ids: []string{"users/long"}, RequestId: long})
		if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.InvalidInput || !strings.Contains(err.Error(), "request_id is 257 bytes; at most 256") {
			t.Fatalf("Claim with a 257-byte request_id: %v; want INVALID_ARGUMENT, INVALID_INPUT, naming the bound", err)
		}
		got, err := ids.GetClaims(ctx, &idnodev1.GetClaimsRequest{Ids: []string{"users/long"}})
		if err != nil || len(got.GetClaims()) != 0 {
			t.Fatalf("after the refused claim, GetClaims = %v, %v; want no claim", got, err)
		}
		if _, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|", RequestId: long}); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("Generate with a 257-byte request_id: %v; want INVALID_ARGUMENT", err)
		}
		// HiLo names a grant by its request_id: its calls too are refused at the door, not by the
		// pool or the FSM that check a grant's identity again further in.
		atTheDoor := func(call string, err error) {
			t.Helper()
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "request_id is 257 bytes; at most 256") {
				t.Fatalf("%s with a 257-byte request_id: %v; want INVALID_ARGUMENT from the interceptor, naming the bound", call, err)
			}
		}
		_, err = ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders", RequestId: long})
		atTheDoor("NextHiLo", err)
		_, err = ids.ReturnHiLo(ctx, &idnodev1.ReturnHiLoRequest{Tag: "orders", End: 32, Last: 4, GrantId: "g", RequestId: long})
		atTheDoor("ReturnHiLo", err)
		if _, err := ids.Claim(ctx, &idnodev1.ClaimRequest{Ids: []string{"users/long"}, RequestId: long[:256]}); err != nil {
			t.Fatalf("Claim with a 256-byte request_id: %v", err)
		}
	})
}
