package hostile

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// A NextIdentity answer lists the claimed numbers its block steps over. With enough claims
// inside a block that list outgrew the 4 MiB message limit: the values were committed, the
// answer could not be sent, and a retry with the same request id met the same wall.
// The answer is bounded, so the first call and its retry are both delivered, and the
// counter goes on above everything handed out.
func TestNextIdentityAnswerAlwaysFits(t *testing.T) {
	t.Parallel()
	t.Run("single node", func(t *testing.T) {
		t.Parallel()
		p, ids := e2etest.StartSingle(t)
		identityAnswerFits(t, ids, p.Tag)
	})
	// A follower relays its callers' increments to the leader in one call, whose answer
	// carries every block's skipped values.
	t.Run("follower", func(t *testing.T) {
		t.Parallel()
		c := e2etest.StartCluster(t)
		follower := c.Others(c.Leader())[0]
		identityAnswerFits(t, c.Ids[follower], follower)
	})
}

// identityAnswerFits claims numbers enough to overflow an answer inside the next block of
// "p", through ids, then takes that block, again with the same request id, and the next.
func identityAnswerFits(t *testing.T, ids idnodev1.IdServiceClient, tag string) {
	t.Helper()
	const (
		base   = int64(1) << 62 // 9-byte varints: the fewest claims that overflow an answer
		claims = 480_000        // skipped numbers of 9 bytes each: past 4 MiB
		batch  = 1000           // IDs per Claim call
	)
	// Claim base+2 .. base+1+claims: the block of two after base starts at base+1 and steps
	// over every one of them.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan int64)
	)
	for range 4 {
		wg.Go(func() {
			for from := range next {
				req := &idnodev1.ClaimRequest{RequestId: fmt.Sprintf("claims-%d", from)}
				for n := from; n < from+batch; n++ {
					req.Ids = append(req.Ids, fmt.Sprintf("p/%d", base+2+n))
				}
				// A relayed claim may meet an election on a busy machine: asked again with
				// its request id, as a client would.
				if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ClaimResponse, error) { return ids.Claim(ctx, req) }); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for from := int64(0); from < claims; from += batch {
		next <- from
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("claiming %d numbers of p: %v", claims, err)
	}
	// A seed sets a value, and each NextIdentity carries its request id: all are safe to ask
	// again after a refusal for want of a leader.
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.SeedIdentityResponse, error) {
		return ids.SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: "p", Value: base})
	}); err != nil {
		t.Fatal(err)
	}
	nextIdentity := func(req *idnodev1.NextIdentityRequest) (*idnodev1.NextIdentityResponse, error) {
		return e2etest.Retried(func(ctx context.Context) (*idnodev1.NextIdentityResponse, error) { return ids.NextIdentity(ctx, req) })
	}
	req := &idnodev1.NextIdentityRequest{Name: "p", Count: 2, RequestId: "one-block-" + tag}
	first, err := nextIdentity(req)
	if err != nil {
		t.Fatalf("NextIdentity(p, 2) over %d claimed numbers: %v; want an answer that fits", claims, err)
	}
	if first.GetFirst() != base+1 || first.GetLast() < first.GetFirst() {
		t.Fatalf("NextIdentity(p, 2) = %d..%d; want a block starting at %d", first.GetFirst(), first.GetLast(), base+1)
	}
	retry, err := nextIdentity(req)
	if err != nil || retry.GetFirst() != first.GetFirst() || retry.GetLast() != first.GetLast() || len(retry.GetSkipped()) != len(first.GetSkipped()) {
		t.Fatalf("the retry with the same request id = %v, %v; want the first answer %v again", retry, err, first)
	}
	after, err := nextIdentity(&idnodev1.NextIdentityRequest{Name: "p", Count: 1, RequestId: "after-" + tag})
	if err != nil || after.GetFirst() <= first.GetLast() || after.GetFirst() < base+2+claims {
		t.Fatalf("the next identity = %v, %v; want one above %d and above the claims (%d)", after, err, first.GetLast(), base+1+claims)
	}
}
