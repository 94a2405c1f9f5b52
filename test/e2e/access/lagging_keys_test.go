package access

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// A node that restarts while the cluster created its first API key, and
// has not applied that key yet, served key-guarded calls to anyone: it answered with less
// security than the cluster has. Here a follower restarts with no leader to tell it how far the
// log is committed, so it cannot know about the key until the other two are back. Until it has applied what
// the leader had committed, it refuses such calls UNAVAILABLE (NOT_CAUGHT_UP); then it checks
// keys as every node does.
func TestRestartedNodeRefusesKeyCallsUntilCaughtUp(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	// The default database: a restarted node knows it before it has applied anything.
	order := &idnodev1.GenerateRequest{Id: "orders/1"}
	leader := c.Leader()
	lagging, other := c.Node(c.Others(leader)[0]), c.Node(c.Others(leader)[1])
	lagging.Stop()
	// Two nodes left: a missed heartbeat is an election. A retry may create a second key,
	// which the lagging node must apply as well.
	var key *idnodev1.CreateKeyResponse
	_, err := e2etest.RetriedWrite(func(ctx context.Context) (err error) {
		key, err = c.Admin[leader].CreateKey(ctx, &idnodev1.CreateKeyRequest{Role: "writer"})
		return err
	})
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	withKey := func() context.Context {
		return metadata.AppendToOutgoingContext(e2etest.RPCCtx(t), "authorization", "Bearer "+key.GetKey())
	}
	c.Node(leader).Stop()
	other.Stop()
	lagging.Restart()
	ids, _ := e2etest.Dial(t, lagging.GRPCAddr)
	var refusal error
	e2etest.Eventually(t, e2etest.ServeTimeout, "an answer from the restarted node's IdService, not its closed port", func() error {
		_, refusal = ids.Generate(e2etest.RPCCtx(t), order)
		if refusal != nil && reason.Of(refusal) == "" {
			return refusal
		}
		return nil
	})
	if status.Code(refusal) != codes.Unavailable || reason.Of(refusal) != reason.NotCaughtUp {
		t.Fatalf("Generate without a key on a node restarted behind a cluster that has one: %v; want UNAVAILABLE (%s)", refusal, reason.NotCaughtUp)
	}
	if _, err := ids.Generate(withKey(), order); status.Code(err) != codes.Unavailable || reason.Of(err) != reason.NotCaughtUp {
		t.Errorf("Generate with the new key on the restarted node before it caught up: %v; want UNAVAILABLE (%s)", err, reason.NotCaughtUp)
	}

	c.Node(leader).Restart()
	other.Restart()
	c.WaitServing(e2etest.ClusterTags...)
	if _, err := ids.Generate(e2etest.RPCCtx(t), order); status.Code(err) != codes.Unauthenticated {
		t.Errorf("Generate without a key on the restarted node, caught up: %v; want UNAUTHENTICATED", err)
	}
	if _, err := ids.Generate(withKey(), order); err != nil {
		t.Errorf("Generate with the key on the restarted node, caught up: %v", err)
	}
}
