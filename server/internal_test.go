package server_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	relayv1 "github.com/idnode/idnode/proto/idnode/relay/v1"
)

// The leader checks relayed increments as it checks a client's: a peer (or anything that
// reaches the internal port) cannot create an invalid counter or pass the per-call maximum.
func TestRelayChecksIncrements(t *testing.T) {
	c := newTestCluster(t, 1)
	conn, err := grpc.NewClient("passthrough:///"+c.Node("A").InternalAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	relay := relayv1.NewRelayClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	for _, inc := range []*raftv1.IdentityIncrement{{Name: "", Count: 1}, {Name: "x", Count: 1 << 40}, {Name: "x", Count: 0}} {
		_, err := relay.NextIdentities(ctx, &relayv1.NextIdentitiesRequest{Increments: []*raftv1.IdentityIncrement{inc}})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("relayed increment %v: %v, want INVALID_ARGUMENT", inc, err)
		}
	}
	resp, err := relay.NextIdentities(ctx, &relayv1.NextIdentitiesRequest{Increments: []*raftv1.IdentityIncrement{{Name: "x", Count: 2}}})
	if err != nil || len(resp.GetAnswers()) != 1 || resp.GetAnswers()[0].GetFirst() != 1 || resp.GetAnswers()[0].GetLast() != 2 {
		t.Fatalf("a valid relayed increment: %v, %v; want x 1–2 (nothing moved before)", resp, err)
	}
}
