package clients

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestClientAgainstSingleNode runs the client's calls against a real node, dialed together
// with an address where nothing listens (the client skips it): HiLo IDs whose ranges double
// under fast use, AssignID's conventions, and the typed calls.
func TestClientAgainstSingleNode(t *testing.T) {
	t.Parallel()
	// Local types, so as not to take these names in the package; reflect names them the same.
	type Order struct {
		ID       string
		Customer string
	}
	type PackageTracking struct{ Id string }
	p := e2etest.StartNode(t, e2etest.NodeOpts{})
	p.WaitServing(e2etest.ServeTimeout)
	c, err := client.Dial(context.Background(), []string{e2etest.FreeAddr(t), p.GRPCAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	ctx := e2etest.RPCCtx(t)

	// One caller, 10,000 IDs: orders/1-A … orders/10000-A in order. The server doubles the
	// range for every request that comes within 30 s of the previous one: 32, 64, … 8192
	// (ranges up to 4096 end at 8160; the 8192 one is 22% used, short of the fixed prefetch
	// point, but at this loop's rate it may run out within two fetch times, which prefetches
	// the 16384 one).
	for i := int64(1); i <= 10_000; i++ {
		id, err := c.NextID(ctx, "orders")
		if err != nil {
			t.Fatalf("NextID #%d: %v", i, err)
		}
		if want := docid.HiLoID("orders/", i, "A"); id != want {
			t.Fatalf("NextID #%d = %q, want %q", i, id, want)
		}
	}
	g, err := c.Generator("orders")
	if err != nil {
		t.Fatal(err)
	}
	st := g.Stats()
	if (st.Fetches != 9 || st.RangeSize != 8192) && (st.Fetches != 10 || st.RangeSize != 16384) {
		t.Errorf("after 10,000 IDs: %+v; want 9 ranges doubling from 32 to 8192, and perhaps the prefetched 16384", st)
	}

	o := &Order{Customer: "ayende"}
	if id, err := c.AssignID(ctx, o); err != nil || id != "orders/10001-A" || o.ID != id {
		t.Errorf("AssignID(&Order{}) = %q, %v, field %q; want orders/10001-A", id, err, o.ID)
	}
	pt := &PackageTracking{}
	if id, err := c.AssignID(ctx, pt); err != nil || id != "PackageTrackings/1-A" || pt.Id != id {
		t.Errorf("AssignID(&PackageTracking{}) = %q, %v, field %q", id, err, pt.Id)
	}
	o = &Order{ID: "orders|"}
	if id, err := c.AssignID(ctx, o); err != nil || id != "orders/1" || o.ID != id {
		t.Errorf("AssignID(orders|) = %q, %v, field %q; want the identity orders/1", id, err, o.ID)
	}
	o = &Order{ID: "orders/"}
	if id, err := c.AssignID(ctx, o); err != nil || !regexp.MustCompile(`^orders/0{18}1-A$`).MatchString(id) || o.ID != id {
		t.Errorf("AssignID(orders/) = %q, %v, field %q; want a server-side ID", id, err, o.ID)
	}
	o = &Order{ID: "orders/ayende"}
	if id, err := c.AssignID(ctx, o); err != nil || id != "orders/ayende" {
		t.Errorf("AssignID(orders/ayende) = %q, %v; want it kept", id, err)
	}
	o = &Order{ID: `orders\1`}
	if _, err := c.AssignID(ctx, o); status.Code(err) != codes.InvalidArgument || o.ID != `orders\1` {
		t.Errorf("AssignID(orders\\1) = %v, field %q; want INVALID_ARGUMENT, field unchanged", err, o.ID)
	}

	if ids, err := c.Generate(ctx, "", 2); err != nil || len(ids) != 2 || uuid.MustParse(ids[0]).Version() != 7 {
		t.Errorf("Generate(\"\", 2) = %v, %v; want two UUIDv7", ids, err)
	}
	if ids, err := c.Generate(ctx, "users|", 3); err != nil || !slices.Equal(ids, []string{"users/1", "users/2", "users/3"}) {
		t.Errorf("Generate(users|, 3) = %v, %v", ids, err)
	}
	if _, err := c.Generate(ctx, `a\b`, 1); status.Code(err) != codes.InvalidArgument {
		t.Errorf(`Generate("a\b") = %v, want INVALID_ARGUMENT`, err)
	}
	if b, err := c.NextIdentity(ctx, "invoices", 3); err != nil || b.First != 1 || b.Last != 3 {
		t.Errorf("NextIdentity(invoices, 3) = %+v, %v", b, err)
	}
	if v, err := c.SeedIdentity(ctx, "invoices", 654, false); err != nil || v != 654 {
		t.Errorf("SeedIdentity(invoices, 654) = %d, %v", v, err)
	}
	if b, err := c.NextIdentity(ctx, "invoices", 1); err != nil || b.First != 655 {
		t.Errorf("NextIdentity after seeding 654 = %+v, %v; want 655", b, err)
	}
	got := map[string]int64{}
	for id, err := range c.Identities(ctx, "", 1) {
		if err != nil {
			t.Fatalf("Identities: %v", err)
		}
		got[id.GetName()] = id.GetValue()
	}
	if len(got) != 3 || got["users"] != 3 || got["invoices"] != 655 || got["orders"] != 1 {
		t.Errorf("Identities (pages of 1) = %v; want orders 1, users 3, invoices 655", got)
	}
	if st, err := c.Admin().Status(ctx, true); err != nil || st.GetLeader() != "A" {
		t.Errorf("Status = %v, %v", st, err)
	}
	if r, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "raw"}); err != nil || r.GetLow() != 1 || r.GetServerTag() != "A" {
		t.Errorf("NextHiLo(raw) = %v, %v", r, err)
	}

	if err := c.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := c.NextID(ctx, "orders"); !errors.Is(err, client.ErrClosed) {
		t.Errorf("NextID after Close = %v, want ErrClosed", err)
	}
	// 10,001 orders IDs (AssignID took the last): Close gave back everything above, the range
	// in use's tail and the range it prefetched, if any.
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	for tag, want := range map[string]int64{"orders": 10_002, "PackageTrackings": 2} {
		r, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: tag})
		if err != nil || r.GetLow() != want {
			t.Errorf("NextHiLo(%s) after Close = %v, %v; want low %d (every unused number was returned)", tag, r, err, want)
		}
	}
}

// TestClientNextIDParallelNoDuplicates: the 100 goroutines × 2000 NextID, in this
// (race-checked) process against a real node; the IDs are exactly orders/1-A … orders/200000-A.
func TestClientNextIDParallelNoDuplicates(t *testing.T) {
	t.Parallel()
	p := e2etest.StartNode(t, e2etest.NodeOpts{})
	p.WaitServing(e2etest.ServeTimeout)
	c, err := client.Dial(context.Background(), []string{p.GRPCAddr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const workers, each = 100, 2000
	got := make([][]string, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				id, err := c.NextID(ctx, "orders")
				if err != nil {
					errs[w] = err
					return
				}
				got[w] = append(got[w], id)
			}
		})
	}
	wg.Wait()
	seen := make([]bool, workers*each+1)
	for w := range workers {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		for _, id := range got[w] {
			num, ok := strings.CutPrefix(id, "orders/")
			num, ok2 := strings.CutSuffix(num, "-A")
			n, err := strconv.Atoi(num)
			if !ok || !ok2 || err != nil || n < 1 || n >= len(seen) {
				t.Fatalf("ID %q is not orders/N-A with 1 <= N <= %d", id, workers*each)
			}
			if seen[n] {
				t.Fatalf("ID %q handed out twice", id)
			}
			seen[n] = true
		}
	}
	g, err := c.Generator("orders")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	want := int64(workers*each + 1)
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	if r, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders"}); err != nil || r.GetLow() != want {
		t.Fatalf("NextHiLo(orders) after Close = %v, %v; want low %d (%+v)", r, err, want, g.Stats())
	}
}
