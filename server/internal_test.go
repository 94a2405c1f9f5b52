package server_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// The leader checks forwarded increments as it checks a client's: a peer (or anything that
// reaches the internal port) cannot create an invalid counter or pass the per-call maximum.
func TestForwardedIncrementsAreChecked(t *testing.T) {
	c := newTestCluster(t, 1)
	conn, err := grpc.NewClient("passthrough:///"+c.Node("A").InternalAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fwd := forwardv1.NewForwardClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	for _, inc := range []*raftv1.IdentityIncrement{{Name: "", Count: 1}, {Name: "x", Count: 1 << 40}, {Name: "x", Count: 0}} {
		_, err := fwd.NextIdentities(ctx, &forwardv1.NextIdentitiesRequest{Increments: []*raftv1.IdentityIncrement{inc}})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("forwarded increment %v: %v, want INVALID_ARGUMENT", inc, err)
		}
	}
	resp, err := fwd.NextIdentities(ctx, &forwardv1.NextIdentitiesRequest{Increments: []*raftv1.IdentityIncrement{{Name: "x", Count: 2}}})
	if err != nil || len(resp.GetAnswers()) != 1 || resp.GetAnswers()[0].GetFirst() != 1 || resp.GetAnswers()[0].GetLast() != 2 {
		t.Fatalf("a valid forwarded increment: %v, %v; want x 1–2 (nothing moved before)", resp, err)
	}
}
