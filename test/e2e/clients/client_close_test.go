package clients

import (
	"context"
	"testing"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestClientCloseLeavesNoGap runs against a real node, with HiLo pools on and
// off: a client that took n IDs of a tag and closed gives back every number it did not hand
// out, its current range's tail and the range it prefetched, so the tag's next range starts at
// n+1. Two IDs is the short-lived client; 200,000 the one whose last range is large (131,041 …
// 262,112) and whose next one was prefetched.
func TestClientCloseLeavesNoGap(t *testing.T) {
	t.Parallel()
	for _, pools := range []string{"true", "false"} {
		t.Run("pools="+pools, func(t *testing.T) {
			t.Parallel()
			p, ids := e2etest.StartSingle(t, "--hilo-pools="+pools)
			for _, n := range []int64{2, 200_000} {
				tag := "close" + pools
				if n > 2 {
					tag += "big"
				}
				c, err := client.Dial(context.Background(), []string{p.GRPCAddr})
				if err != nil {
					t.Fatal(err)
				}
				// Each call has its own bound: 200,000 of them take seconds on a busy machine.
				for i := int64(1); i <= n; i++ {
					ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
					id, err := c.NextID(ctx, tag)
					cancel()
					if err != nil {
						t.Fatalf("NextID #%d: %v", i, err)
					}
					if want := docid.HiLoID(tag+"/", i, "A"); id != want {
						t.Fatalf("NextID #%d = %q, want %q", i, id, want)
					}
				}
				if err := c.Close(e2etest.RPCCtx(t)); err != nil {
					t.Fatalf("Close after %d IDs: %v", n, err)
				}
				r, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: tag})
				if err != nil {
					t.Fatal(err)
				}
				if r.GetLow() != n+1 {
					t.Errorf("after a client took %d IDs of %s and closed, the next range starts at %d, want %d", n, tag, r.GetLow(), n+1)
				}
			}
		})
	}
}
