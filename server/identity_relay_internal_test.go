package server

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// A batch is relayed in parts, in order, each a request the leader accepts, none empty.
func TestRelayableParts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, nameLen int }{{1, 10}, {4096, 10}, {4096, 1990}, {1500, 1990}, {1, 1996}} {
		incs := make([]*raftv1.IdentityIncrement, c.n)
		for i := range incs {
			incs[i] = &raftv1.IdentityIncrement{Name: fmt.Sprintf("%d%s", i, strings.Repeat("n", c.nameLen)), Count: 1 << 40, RequestId: strings.Repeat("r", 64)}
		}
		parts := 0
		for start := 0; start < len(incs); parts++ {
			n := relayable(incs[start:])
			if n < 1 {
				t.Fatalf("%d names of %d bytes: a part of %d increments", c.n, c.nameLen, n)
			}
			if size := proto.Size(&forwardv1.NextIdentitiesRequest{Increments: incs[start : start+n]}); size > maxRelayBytes {
				t.Fatalf("%d names of %d bytes: a part of %d bytes, over %d", c.n, c.nameLen, size, maxRelayBytes)
			}
			start += n
		}
		if whole := proto.Size(&forwardv1.NextIdentitiesRequest{Increments: incs}); whole <= maxRelayBytes && parts != 1 {
			t.Errorf("%d names of %d bytes fit one request of %d bytes, relayed in %d", c.n, c.nameLen, whole, parts)
		}
	}
}
