package clients

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// heldRanges is who holds which HiLo numbers of a tag: a number granted to two holders at once
// is the duplicate that a returned range granted again would be.
type heldRanges struct {
	t    *testing.T
	held map[string][2]int64 // holder → its newest range
}

// hold records that holder now holds r (its earlier range, if any, is done with) and fails the
// test when r overlaps what another holder holds.
func (h *heldRanges) hold(holder string, r *idnodev1.NextHiLoResponse) {
	h.t.Helper()
	for other, o := range h.held {
		if other != holder && r.GetLow() <= o[1] && o[0] <= r.GetHigh() {
			h.t.Fatalf("%s was granted %d..%d, overlapping %d..%d that %s holds", holder, r.GetLow(), r.GetHigh(), o[0], o[1], other)
		}
	}
	h.held[holder] = [2]int64{r.GetLow(), r.GetHigh()}
}

// release records that holder gave its range back whole.
func (h *heldRanges) release(holder string) { delete(h.held, holder) }

// TestHiLoReturnsAndRetriesNeverRegrant checks, against a real node, that a returned range is never
// granted again and that last_max is bounded, with HiLo pools on and off: a return and a retry of
// the returned request, a return of a range by a client it was never granted to, a return made
// twice, a return whose end is below its last, and a last_max near the top of int64. No number may
// be granted to two holders, and no caller may leave a tag unable to grant.
func TestHiLoReturnsAndRetriesNeverRegrant(t *testing.T) {
	t.Parallel()
	for _, pools := range []string{"true", "false"} {
		t.Run("pools="+pools, func(t *testing.T) {
			t.Parallel()
			_, ids := e2etest.StartSingle(t, "--hilo-pools="+pools)
			next := func(tag, requestID string) *idnodev1.NextHiLoResponse {
				t.Helper()
				r, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: tag, RequestId: requestID})
				if err != nil {
					t.Fatalf("NextHiLo(%s, request_id %q): %v", tag, requestID, err)
				}
				return r
			}
			giveBack := func(req *idnodev1.ReturnHiLoRequest) error {
				_, err := ids.ReturnHiLo(e2etest.RPCCtx(t), req)
				return err
			}

			t.Run("retry of a returned request", func(t *testing.T) {
				h := &heldRanges{t: t, held: map[string][2]int64{}}
				r1 := next("retried", "r1")
				h.hold("r1", r1)
				_ = giveBack(&idnodev1.ReturnHiLoRequest{Tag: "retried", End: r1.GetHigh(), Last: r1.GetLow() - 1})
				h.hold("other", next("retried", "other"))
				h.hold("r1", next("retried", "r1"))
			})
			t.Run("return by a client never granted the range", func(t *testing.T) {
				h := &heldRanges{t: t, held: map[string][2]int64{}}
				victim := next("stranger", "victim")
				h.hold("victim", victim)
				_ = giveBack(&idnodev1.ReturnHiLoRequest{Tag: "stranger", End: victim.GetHigh(), Last: victim.GetLow() - 1})
				h.hold("third", next("stranger", "third"))
			})
			t.Run("a range returned twice", func(t *testing.T) {
				h := &heldRanges{t: t, held: map[string][2]int64{}}
				x := next("twice", "x")
				ret := &idnodev1.ReturnHiLoRequest{Tag: "twice", End: x.GetHigh(), Last: x.GetLow() - 1}
				_ = giveBack(ret)
				h.hold("y", next("twice", "y"))
				_ = giveBack(ret)
				h.hold("z", next("twice", "z"))
			})
			t.Run("end below last", func(t *testing.T) {
				r := next("inverted", "inv")
				err := giveBack(&idnodev1.ReturnHiLoRequest{Tag: "inverted", End: r.GetHigh(), Last: r.GetHigh() + 8, GrantId: "inv"})
				if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "last") {
					t.Fatalf("ReturnHiLo with last %d above end %d = %v; want INVALID_ARGUMENT naming last", r.GetHigh()+8, r.GetHigh(), err)
				}
			})
			t.Run("return without grant_id", func(t *testing.T) {
				r := next("anonymous", "anon")
				err := giveBack(&idnodev1.ReturnHiLoRequest{Tag: "anonymous", End: r.GetHigh(), Last: r.GetLow() - 1})
				if status.Code(err) != codes.FailedPrecondition || !strings.Contains(status.Convert(err).Message(), "grant_id") {
					t.Fatalf("ReturnHiLo without grant_id = %v; want FAILED_PRECONDITION naming grant_id", err)
				}
			})
			t.Run("the grantee returns, its retry gets a new range", func(t *testing.T) {
				h := &heldRanges{t: t, held: map[string][2]int64{}}
				r1 := next("granted", "g1")
				h.hold("g1", r1)
				if r1.GetGrantId() != "g1" {
					t.Fatalf("grant_id of request g1 = %q, want g1", r1.GetGrantId())
				}
				ret := &idnodev1.ReturnHiLoRequest{Tag: "granted", End: r1.GetHigh(), Last: r1.GetLow() - 1, GrantId: "g1"}
				if resp, err := ids.ReturnHiLo(e2etest.RPCCtx(t), ret); err != nil || !resp.GetReturned() {
					t.Fatalf("the grantee's ReturnHiLo = %v, %v; want returned", resp, err)
				}
				h.release("g1")
				h.hold("other", next("granted", "g2"))
				if resp, err := ids.ReturnHiLo(e2etest.RPCCtx(t), ret); err != nil || resp.GetReturned() {
					t.Fatalf("the same ReturnHiLo again = %v, %v; want not returned", resp, err)
				}
				h.hold("third", next("granted", "g3"))
				h.hold("g1", next("granted", "g1"))
				// A stranger who knows the newest range's end but not its grant_id.
				stolen := &idnodev1.ReturnHiLoRequest{Tag: "granted", End: h.held["g1"][1], Last: h.held["g1"][0] - 1, GrantId: "g2"}
				if resp, err := ids.ReturnHiLo(e2etest.RPCCtx(t), stolen); err != nil || resp.GetReturned() {
					t.Fatalf("ReturnHiLo of g1's range as g2 = %v, %v; want not returned", resp, err)
				}
				h.hold("fourth", next("granted", "g4"))
			})
			t.Run("a range without request_id gets a grant_id of its own", func(t *testing.T) {
				r := next("unnamed", "")
				if r.GetGrantId() == "" {
					t.Fatal("NextHiLo without request_id answered no grant_id")
				}
				ret := &idnodev1.ReturnHiLoRequest{Tag: "unnamed", End: r.GetHigh(), Last: r.GetLow() + 1, GrantId: r.GetGrantId()}
				if resp, err := ids.ReturnHiLo(e2etest.RPCCtx(t), ret); err != nil || !resp.GetReturned() {
					t.Fatalf("ReturnHiLo with the answered grant_id = %v, %v; want returned", resp, err)
				}
				if again := next("unnamed", ""); again.GetLow() != r.GetLow()+2 {
					t.Fatalf("the range after returning %d..%d starts at %d", r.GetLow()+2, r.GetHigh(), again.GetLow())
				}
			})
			t.Run("ids too long to keep", func(t *testing.T) {
				long := strings.Repeat("r", 257)
				_, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "long", RequestId: long})
				if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "request_id") {
					t.Errorf("NextHiLo with a 257-byte request_id = %v; want INVALID_ARGUMENT naming it", err)
				}
				err = giveBack(&idnodev1.ReturnHiLoRequest{Tag: "long", End: 32, Last: 0, GrantId: long})
				if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "grant_id") {
					t.Errorf("ReturnHiLo with a 257-byte grant_id = %v; want INVALID_ARGUMENT naming it", err)
				}
			})
			t.Run("last_batch_size above any range", func(t *testing.T) {
				_, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "huge", LastBatchSize: math.MaxInt64, LastRangeAt: 1})
				if status.Code(err) != codes.OutOfRange || !strings.Contains(status.Convert(err).Message(), "last_batch_size") {
					t.Fatalf("NextHiLo with last_batch_size 2^63-1 = %v; want OUT_OF_RANGE naming last_batch_size", err)
				}
			})
			t.Run("last_max near the top of int64", func(t *testing.T) {
				_, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "wedged", LastMax: math.MaxInt64 - 100})
				if status.Code(err) != codes.OutOfRange || !strings.Contains(status.Convert(err).Message(), "last_max") {
					t.Errorf("NextHiLo with last_max 2^63-101 = %v; want OUT_OF_RANGE naming last_max", err)
				}
				for i := range 10 {
					next("wedged", fmt.Sprintf("after-%d", i))
				}
			})
		})
	}
}
