package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// catchUpRounds is how many databases and keys TestCallRightAfterCreateWorksOnEveryNode makes:
// the window it tests (a follower that has not applied an entry the leader already answered
// for) is a few milliseconds wide, so one round alone would rarely meet it.
const catchUpRounds = 15

// A follower may not yet have applied a database or key the leader just
// created, and refused a call right after CreateDatabase / CreateKey with NOT_FOUND or
// UNAUTHENTICATED. Now a node that does not know the name waits (bounded) until it has applied
// what the leader had committed, then decides.
func TestCallRightAfterCreateWorksOnEveryNode(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	// Databases first: once the cluster has a key, every call needs one.
	dbs := make([]string, catchUpRounds)
	for round := range catchUpRounds {
		via := e2etest.ClusterTags[round%len(e2etest.ClusterTags)]
		dbs[round] = fmt.Sprintf("shop%d", round)
		// An election on a busy machine refuses a call; one the cluster acted on before the
		// refusal finds the database there when asked again.
		retried, err := e2etest.RetriedWrite(func(ctx context.Context) error {
			_, err := c.Admin[via].CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: dbs[round]})
			return err
		})
		if err != nil && !(retried && status.Code(err) == codes.AlreadyExists) {
			t.Fatalf("CreateDatabase %s via %s: %v", dbs[round], via, err)
		}
		onEveryNode(t, c, fmt.Sprintf("right after CreateDatabase %s via %s", dbs[round], via), func(tag string) error {
			_, err := c.Ids[tag].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders/1", Database: dbs[round]})
			return err
		})
	}
	for round, db := range dbs {
		via := e2etest.ClusterTags[round%len(e2etest.ClusterTags)]
		var key *idnodev1.CreateKeyResponse
		_, err := e2etest.RetriedWrite(func(ctx context.Context) (err error) {
			key, err = c.Admin[via].CreateKey(ctx, &idnodev1.CreateKeyRequest{Database: db, Role: "writer"})
			return err
		})
		if err != nil {
			t.Fatalf("CreateKey for %s via %s: %v", db, via, err)
		}
		onEveryNode(t, c, fmt.Sprintf("right after CreateKey for %s via %s", db, via), func(tag string) error {
			ctx := metadata.AppendToOutgoingContext(e2etest.RPCCtx(t), "authorization", "Bearer "+key.GetKey())
			_, err := c.Ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders/1", Database: db})
			return err
		})
	}
}

// onEveryNode runs call against every node at once and fails the test naming each node that
// refused. A node that has not caught up refuses with NOT_FOUND or UNAUTHENTICATED, which is
// what the test is for; a refusal a client retries (an election on a busy machine) is asked
// again, up to LeaderTimeout.
func onEveryNode(t *testing.T, c *e2etest.Cluster, what string, call func(tag string) error) {
	t.Helper()
	errs := make([]error, len(e2etest.ClusterTags))
	var wg sync.WaitGroup
	for i, tag := range e2etest.ClusterTags {
		wg.Go(func() { errs[i] = e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) error { return call(tag) }) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: node %s: %v", what, e2etest.ClusterTags[i], err)
		}
	}
}
