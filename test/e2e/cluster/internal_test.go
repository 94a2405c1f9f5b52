package cluster

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// Node-to-node calls are served on the Raft port, not the client port: a client used
// to reach the Relay service there and push increments straight into the leader's batches,
// past name validation, the per-call maximum and the admin token. The public port now lists
// and serves only the public services, a forged marker header changes nothing, and followers
// still forward.
func TestInternalServicesAreNotOnTheClientPort(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	leader := c.Leader()
	follower := c.Others(leader)[0]

	stream, err := reflectionpb.NewServerReflectionClient(c.Conns[follower]).ServerReflectionInfo(e2etest.RPCCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var services []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		services = append(services, s.GetName())
	}
	if slices.Contains(services, forwardv1.Forward_ServiceDesc.ServiceName) || !slices.Contains(services, idnodev1.IdService_ServiceDesc.ServiceName) {
		t.Errorf("the client port lists %v: want the public services and not %s", services, forwardv1.Forward_ServiceDesc.ServiceName)
	}

	for _, tag := range []string{leader, follower} {
		_, err := forwardv1.NewForwardClient(c.Conns[tag]).NextIdentities(e2etest.RPCCtx(t), &forwardv1.NextIdentitiesRequest{
			Increments: []*raftv1.IdentityIncrement{{Name: "", Count: 1 << 40}},
		})
		if status.Code(err) != codes.Unimplemented {
			t.Errorf("Forward.NextIdentities on node %s's client port: %v, want UNIMPLEMENTED", tag, err)
		}
	}

	// On the Raft port the internal services answer only the cluster's nodes: the leader sets a
	// cluster secret soon after the first election, and a call without it is refused. (Before
	// that the increment below is refused as invalid: it changes nothing either way.)
	raftConn := e2etest.DialConn(t, c.Node(leader).RaftAddr)
	e2etest.Eventually(t, 10*time.Second, "the internal port refusing a call without the cluster secret", func() error {
		_, err := forwardv1.NewForwardClient(raftConn).NextIdentities(e2etest.RPCCtx(t), &forwardv1.NextIdentitiesRequest{
			Increments: []*raftv1.IdentityIncrement{{Name: "", Count: 1 << 40}},
		})
		if status.Code(err) != codes.Unauthenticated {
			return fmt.Errorf("Forward.NextIdentities on node %s's Raft port without the secret: %v, want UNAUTHENTICATED", leader, err)
		}
		return nil
	})

	// The old forwarding marker, forged by a client, is just metadata now: the follower still forwards.
	// Asked again with its request id after a refusal for want of a leader, as a client would.
	op := rec.BeginIdentity("orders", 1)
	req := &idnodev1.GenerateRequest{Id: "orders|", RequestId: c.RequestID()}
	got, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) {
		return c.Ids[follower].Generate(metadata.AppendToOutgoingContext(ctx, "x-idnode-forwarded-by", leader), req)
	})
	if err != nil {
		op.Unknown()
		t.Fatalf("Generate via follower %s with a forged forwarding header: %v", follower, err)
	}
	first, last, err := e2etest.ParseIdentities(got.GetIds(), "orders", 1)
	if err != nil {
		t.Fatal(err)
	}
	op.Done(first, last)
	c.MustIdentity(rec, "orders", 2, follower)
	e2etest.CheckHistory(t, rec)
}
