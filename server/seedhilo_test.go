package server_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// SeedHiLo through a follower reaches the leader's FSM: the next range, from any node, starts
// above the seed; a lower seed answers the Max and changes nothing; an unknown database is
// NOT_FOUND from the FSM.
func TestSeedHiLoThroughAFollower(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		follower := without(c.Tags(), leader)[0]
		viaFollower := idnodev1.NewIdServiceClient(c.Dial(t, follower))
		viaLeader := idnodev1.NewIdServiceClient(c.Dial(t, leader))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		seed := func(tag string, max int64, db string) (int64, error) {
			resp, err := viaFollower.SeedHiLo(ctx, &idnodev1.SeedHiLoRequest{Tag: tag, Max: max, Database: db})
			return resp.GetMax(), err
		}
		next := func(c idnodev1.IdServiceClient) *idnodev1.NextHiLoResponse {
			t.Helper()
			r, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
			if err != nil {
				t.Fatalf("NextHiLo(orders): %v", err)
			}
			return r
		}
		if m, err := seed("orders", 5000, ""); err != nil || m != 5000 {
			t.Fatalf("SeedHiLo(orders, 5000) through follower %s = %d, %v; want 5000", follower, m, err)
		}
		if r := next(viaLeader); r.GetLow() != 5001 || r.GetPrefix() != "orders/" || r.GetServerTag() != leader {
			t.Fatalf("NextHiLo after the seed = %v; want low 5001, prefix orders/, server tag %s", r, leader)
		}
		if m, err := seed("Orders", 100, ""); err != nil || m != 5032 {
			t.Fatalf("SeedHiLo(Orders, 100) = %d, %v; want 5032, the Max, unchanged", m, err)
		}
		if r := next(viaFollower); r.GetLow() != 5033 {
			t.Fatalf("NextHiLo after a lower seed = %v; want low 5033", r)
		}
		if _, err := seed("orders", 9000, "shop"); status.Code(err) != codes.NotFound {
			t.Errorf("SeedHiLo in an unknown database = %v, want NOT_FOUND", err)
		}
		// A seed that would leave no room for a range is refused before Raft, naming max.
		if _, err := seed("orders", math.MaxInt64, ""); status.Code(err) != codes.OutOfRange || !strings.Contains(status.Convert(err).Message(), "max") {
			t.Errorf("SeedHiLo(orders, 2^63-1) = %v, want OUT_OF_RANGE naming max", err)
		}
		if r := next(viaLeader); r.GetLow() != 5065 {
			t.Errorf("NextHiLo after the refused seed = %v; want low 5065", r)
		}
	})
}

// A range granted and given back through a follower: the grant_id travels to the leader both
// ways, the return is taken once, and one without grant_id is refused before Raft.
func TestReturnHiLoThroughAFollower(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		follower := idnodev1.NewIdServiceClient(c.Dial(t, without(c.Tags(), leader)[0]))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		r, err := follower.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
		if err != nil || r.GetGrantId() == "" {
			t.Fatalf("NextHiLo through a follower = %v, %v; want a range with a grant_id", r, err)
		}
		ret := &idnodev1.ReturnHiLoRequest{Tag: "orders", End: r.GetHigh(), Last: r.GetLow() + 1, GrantId: r.GetGrantId()}
		if resp, err := follower.ReturnHiLo(ctx, ret); err != nil || !resp.GetReturned() {
			t.Fatalf("ReturnHiLo through a follower = %v, %v; want returned", resp, err)
		}
		if resp, err := follower.ReturnHiLo(ctx, ret); err != nil || resp.GetReturned() {
			t.Fatalf("the same ReturnHiLo again = %v, %v; want not returned", resp, err)
		}
		ret.GrantId = ""
		if _, err := follower.ReturnHiLo(ctx, ret); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("ReturnHiLo without grant_id = %v, want FAILED_PRECONDITION", err)
		}
		if next, err := follower.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"}); err != nil || next.GetLow() != r.GetLow()+2 {
			t.Fatalf("NextHiLo after the return = %v, %v; want low %d", next, err, r.GetLow()+2)
		}
	})
}
