package clients

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestHiLoSeedAndBadTags seeds HiLo tags against a real node: idctl hilo seed orders
// 5000, and a fresh Go client prints orders/5001-A; a lower seed afterwards changes nothing,
// and no ID repeats across the IDs printed before and after it. A tag ending with the
// separator is INVALID_ARGUMENT on every HiLo call and reserves nothing.
func TestHiLoSeedAndBadTags(t *testing.T) {
	t.Parallel()
	p, ids := e2etest.StartSingle(t)
	_, cluster := e2etest.Dial(t, p.GRPCAddr)
	env := []string{"IDNODE_ADDR=" + p.GRPCAddr}
	ctx, cancel := context.WithTimeout(context.Background(), 4*e2etest.RPCTimeout)
	defer cancel()

	if got := e2etest.MustIdctl(t, env, "hilo", "seed", "orders", "5000"); got != "orders: HiLo Max = 5000 (the next range starts at 5001)\n" {
		t.Fatalf("idctl hilo seed orders 5000 printed %q", got)
	}

	number := regexp.MustCompile(`^orders/([0-9]+)-A$`)
	printed := map[string]bool{}
	var highest int64
	// take prints n IDs of orders with c; each must be new and above the seed.
	take := func(c *client.Client, n int) (first int64) {
		t.Helper()
		for i := range n {
			id, err := c.NextID(ctx, "orders")
			if err != nil {
				t.Fatalf("NextID(orders): %v", err)
			}
			m := number.FindStringSubmatch(id)
			if m == nil || printed[id] {
				t.Fatalf("NextID(orders) = %q: not orders/N-A, or printed before (%d IDs so far)", id, len(printed))
			}
			printed[id] = true
			v, _ := strconv.ParseInt(m[1], 10, 64)
			if v <= 5000 {
				t.Fatalf("NextID(orders) = %q, at or below the seed", id)
			}
			if i == 0 {
				first = v
			}
			highest = max(highest, v)
		}
		return first
	}
	dialClient := func() *client.Client {
		c, err := client.Dial(ctx, []string{p.GRPCAddr})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		return c
	}

	before := dialClient()
	if first := take(before, 100); first != 5001 {
		t.Fatalf("the first ID after the seed is orders/%d-A, want orders/5001-A", first)
	}
	m, err := before.SeedHiLo(ctx, "orders", 100)
	if err != nil || m < highest {
		t.Fatalf("SeedHiLo(orders, 100) = %d, %v; want the Max, at least %d (the highest printed)", m, err, highest)
	}
	take(before, 200)
	// A client started after the lower seed may begin inside the node's HiLo pool, reserved
	// before it (numbers nobody was granted): what counts is that take finds no ID twice.
	after := dialClient()
	take(after, 300)
	for _, c := range []*client.Client{before, after} {
		if err := c.Close(ctx); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}

	// Bad tags: refused everywhere, nothing reserved.
	r1, err := ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
	if err != nil || r1.GetLow() <= highest {
		t.Fatalf("NextHiLo(orders) = %v, %v; want a range above %d", r1, err, highest)
	}
	refusals := map[string]error{}
	_, refusals["NextHiLo"] = ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders/"})
	_, refusals["ReturnHiLo"] = ids.ReturnHiLo(ctx, &idnodev1.ReturnHiLoRequest{Tag: "orders/", End: r1.GetHigh(), Last: r1.GetLow() - 1})
	_, refusals["SeedHiLo"] = ids.SeedHiLo(ctx, &idnodev1.SeedHiLoRequest{Tag: "orders/", Max: 9000})
	_, refusals["client NextID"] = dialClient().NextID(ctx, "orders/")
	for call, err := range refusals {
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s(orders/) = %v, want INVALID_ARGUMENT", call, err)
		}
	}
	e2etest.WantIdctlFailure(t, 1, env, []string{"hilo", "seed", "orders/", "9000"}, "INVALID_ARGUMENT", "separator")
	r2, err := ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
	if err != nil || r2.GetLow() != r1.GetHigh()+1 {
		t.Errorf("NextHiLo(orders) after the refused calls = %v, %v; want low %d, right after the range before them", r2, err, r1.GetHigh()+1)
	}
	dbs, err := cluster.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
	if err != nil || len(dbs.GetDatabases()) != 1 || dbs.GetDatabases()[0].GetHiloTags() != 1 {
		t.Errorf("ListDatabases = %v, %v; want the default database with one HiLo tag, orders", dbs, err)
	}
}
