package hostile

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// Numbers near the largest int64 used to wedge a node for good. A claim of
// "p/5", a seed of "p" to 2^63-2 and Generate("p|") sent the FSM's claim-skipping loop round
// past 2^63-1 for ever; a block ending at 2^63-1 did the same to the answer path
// (docid.IdentityBlock.All). Every call here has a deadline, and a retried one gives up after
// LeaderTimeout, so on a wedged node the test fails instead of hanging.
func TestNumbersNearMaxInt64DoNotWedge(t *testing.T) {
	t.Parallel()
	p, c := e2etest.StartSingle(t)
	blockEndingAtMax(t, c)
	claimBelowMax(t, c)
	// The node still answers every strategy.
	e2etest.ExpectGenerate(t, c, "after|", "after/1")
	if id := e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "orders/"}); !strings.HasPrefix(id, "orders/") {
		t.Errorf("server-side ID after the attack = %q", id)
	}
	if d := p.Stop(); d > e2etest.StopTimeout {
		t.Errorf("SIGTERM took %v", d)
	}
}

// The same attack sent to a follower of three nodes used to wedge all three: the entry is in
// every replica's log.
func TestNumbersNearMaxInt64DoNotWedgeCluster(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	follower := c.Others(c.Leader())[0]
	claimBelowMax(t, c.Ids[follower])
	blockEndingAtMax(t, c.Ids[follower])
	for _, tag := range e2etest.ClusterTags {
		want := "after" + tag + "/1"
		if got := generateRetried(t, c.Ids[tag], &idnodev1.GenerateRequest{Id: "after" + tag + "|", RequestId: "after-" + tag}); len(got) != 1 || got[0] != want {
			t.Fatalf("Generate(after%s|) = %q, want %q", tag, got, want)
		}
	}
}

// claimBelowMax is item 1's repro: a claim below a counter seeded to 2^63-2, then the counter's
// last value, and then OUT_OF_RANGE naming the field, never a hang.
func claimBelowMax(t *testing.T, c idnodev1.IdServiceClient) {
	t.Helper()
	if _, err := c.Claim(e2etest.RPCCtx(t), &idnodev1.ClaimRequest{Ids: []string{"p/5"}}); err != nil {
		t.Fatalf("Claim(p/5): %v", err)
	}
	seed(t, c, "p", math.MaxInt64-1)
	if got, want := generateRetried(t, c, &idnodev1.GenerateRequest{Id: "p|", RequestId: "p-at-max"}), "p/"+strconv.FormatInt(math.MaxInt64, 10); len(got) != 1 || got[0] != want {
		t.Fatalf("Generate(p|) at 2^63-2 = %q, want %q", got, want)
	}
	expectOutOfRange(t, c, &idnodev1.GenerateRequest{Id: "p|"}, "count")
}

// blockEndingAtMax is item 1's variant: a block of three ending at 2^63-1 used to loop in the
// answer path (docid.IdentityBlock.All) and grow the node by gigabytes. One more than fits is
// OUT_OF_RANGE and moves nothing.
func blockEndingAtMax(t *testing.T, c idnodev1.IdServiceClient) {
	t.Helper()
	seed(t, c, "big", math.MaxInt64-3)
	if got := generateRetried(t, c, &idnodev1.GenerateRequest{Id: "big|", Count: 3, RequestId: "big-block"}); len(got) != 3 || got[2] != "big/"+strconv.FormatInt(math.MaxInt64, 10) {
		t.Fatalf("Generate(big|, 3) at 2^63-4 = %q", got)
	}
	seed(t, c, "big2", math.MaxInt64-3)
	expectOutOfRange(t, c, &idnodev1.GenerateRequest{Id: "big2|", Count: 4}, "count")
	if _, err := c.NextIdentity(e2etest.RPCCtx(t), &idnodev1.NextIdentityRequest{Name: "big2", Count: 3}); err != nil {
		t.Errorf("the refused call moved the counter: NextIdentity(big2, 3) = %v", err)
	}
}

// generateRetried asks for req's identities, and again with its request id after a refusal
// for want of a leader, as a client would: a retry the cluster acted on answers the same values.
func generateRetried(t *testing.T, c idnodev1.IdServiceClient, req *idnodev1.GenerateRequest) []string {
	t.Helper()
	resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) { return c.Generate(ctx, req) })
	if err != nil {
		t.Fatalf("Generate(%q, %d): %v", req.GetId(), req.GetCount(), err)
	}
	return resp.GetIds()
}

// seed sets a value, so it is safe to ask again after a refusal for want of a leader.
func seed(t *testing.T, c idnodev1.IdServiceClient, name string, value int64) {
	t.Helper()
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.SeedIdentityResponse, error) {
		return c.SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: name, Value: value})
	}); err != nil {
		t.Fatalf("SeedIdentity(%s, %d): %v", name, value, err)
	}
}

func expectOutOfRange(t *testing.T, c idnodev1.IdServiceClient, req *idnodev1.GenerateRequest, field string) {
	t.Helper()
	_, err := c.Generate(e2etest.RPCCtx(t), req)
	if status.Code(err) != codes.OutOfRange || reason.Of(err) != reason.CounterOverflow || !strings.Contains(status.Convert(err).Message(), field) {
		t.Fatalf("Generate(%q, %d) = %v; want OUT_OF_RANGE, %s, naming %s", req.GetId(), req.GetCount(), err, reason.CounterOverflow, field)
	}
}
