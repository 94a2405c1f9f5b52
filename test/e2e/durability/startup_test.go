package durability

import (
	"context"
	"testing"

	"google.golang.org/grpc"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// A call made right after a node starts, before its first election, waits for that election
// instead of being refused with "no quorum".
func TestCallRightAfterStartWaitsForTheFirstElection(t *testing.T) {
	t.Parallel()
	p := e2etest.StartNode(t, e2etest.NodeOpts{})
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.ServeTimeout)
	defer cancel()
	resp, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|"}, grpc.WaitForReady(true))
	if err != nil || len(resp.GetIds()) != 1 || resp.GetIds()[0] != "users/1" {
		t.Fatalf("Generate(users|) right after start = %v, %v; want users/1", resp, err)
	}
}
