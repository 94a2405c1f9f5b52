package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/server"
)

// A follower relayed its whole identity batch to the leader in one call. A full batch (4,096
// callers) of long names is some 8 MB, twice what the leader accepts in one message, so every
// caller in it was refused, for a batch no caller chose. The leader must read the batch: here
// each increment asks for no value, which it refuses by reading them, before Raft (a valid 8 MB
// batch would commit one 8 MB entry, which the in-memory transport's timeouts do not allow
// under the race detector). In virtual time: on a real-time cluster a load average above 30
// cost the leader its lease.
func TestFullRelayedBatchOfLongNamesReachesTheLeader(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		follower := c.Node(without(c.Tags(), leader)[0]).running.Server()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		incs := make([]*raftv1.IdentityIncrement, 4096)
		for i := range incs {
			incs[i] = &raftv1.IdentityIncrement{Name: fmt.Sprintf("%04d-%s", i, strings.Repeat("n", 1990)), RequestId: fmt.Sprintf("relay-%d", i)}
		}
		_, err := server.RelayIdentities(ctx, follower, incs)
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "count") {
			t.Fatalf("relaying %d increments of %d-byte names, none asking for a value: %v; want the leader's INVALID_ARGUMENT on the count",
				len(incs), len(incs[0].Name), err)
		}
	})
}
