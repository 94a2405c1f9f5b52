package server_test

import (
	"context"
	"testing"
	"testing/synctest"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
)

// The leader sets a cluster secret, and its internal server refuses a call without it. With
// it, the leader still checks forwarded increments as it checks a client's: a peer cannot
// create an invalid counter or pass the per-call maximum.
func TestTheInternalPortWantsTheSecretAndChecksIncrements(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		_, a, conn := internalPort(t)
		fwd := forwardv1.NewForwardClient(conn)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		valid := &forwardv1.NextIdentitiesRequest{Increments: []*raftv1.IdentityIncrement{{Name: "x", Count: 2}}}
		if _, err := fwd.NextIdentities(ctx, valid); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("a call without the cluster secret: %v, want UNAUTHENTICATED", err)
		}

		ctx = metadata.AppendToOutgoingContext(ctx, "x-idnode-cluster-secret-bin", string(a.Node.FSM().ClusterSecret()))
		for _, inc := range []*raftv1.IdentityIncrement{{Name: "", Count: 1}, {Name: "x", Count: 1 << 40}, {Name: "x", Count: 0}} {
			_, err := fwd.NextIdentities(ctx, &forwardv1.NextIdentitiesRequest{Increments: []*raftv1.IdentityIncrement{inc}})
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("forwarded increment %v: %v, want INVALID_ARGUMENT", inc, err)
			}
		}
		resp, err := fwd.NextIdentities(ctx, valid)
		if err != nil || len(resp.GetAnswers()) != 1 || resp.GetAnswers()[0].GetFirst() != 1 || resp.GetAnswers()[0].GetLast() != 2 {
			t.Fatalf("a valid forwarded increment: %v, %v; want x 1–2 (nothing moved before)", resp, err)
		}
	})
}

// The internal server serves the leader's side of each operation, not the public services: a
// forwarded call does not run the public handler's checks and branches a second time. A
// Leader call needs the secret like any node-to-node call, and is served only below the
// cluster version that retires the Leader service.
func TestTheInternalPortServesTheLeaderSideOnly(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		_, a, conn := internalPort(t)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		leader := forwardv1.NewLeaderClient(conn)
		req := &idnodev1.NextHiLoRequest{Tag: "orders"}
		if _, err := leader.NextHiLo(ctx, req); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("a Leader call without the cluster secret: %v, want UNAUTHENTICATED", err)
		}
		ctx = metadata.AppendToOutgoingContext(ctx, "x-idnode-cluster-secret-bin", string(a.Node.FSM().ClusterSecret()))
		if _, err := idnodev1.NewIdServiceClient(conn).NextHiLo(ctx, req); status.Code(err) != codes.Unimplemented {
			t.Fatalf("the public IdService on the internal port: %v, want UNIMPLEMENTED", err)
		}
		if _, err := idnodev1.NewClusterServiceClient(conn).ListKeys(ctx, &idnodev1.ListKeysRequest{}); status.Code(err) != codes.Unimplemented {
			t.Fatalf("the public ClusterService on the internal port: %v, want UNIMPLEMENTED", err)
		}
		_, err := leader.NextHiLo(ctx, req)
		refusedSaying(t, "Leader.NextHiLo at this build's cluster version", err, "Leader service was retired")

		// As a cluster in the middle of an upgrade from builds that relay only through Leader.
		if _, err := fsm.Propose(ctx, a.Node, fsm.ProposeSetClusterVersion, &raftv1.SetClusterVersion{Version: 2}); err != nil {
			t.Fatal(err)
		}
		resp, err := leader.NextHiLo(ctx, req)
		if err != nil || resp.GetLow() != 1 || resp.GetServerTag() != "A" {
			t.Fatalf("Leader.NextHiLo with the secret at cluster version 2: %v, %v; want a first range granted by A", resp, err)
		}
	})
}

// The internal server serves the leader halves under their leader names (relay.go), to nodes
// only: a call by that name needs the secret like any node-to-node call, and a public call
// that is answered where it arrives has no leader half to run.
func TestTheInternalPortServesLeaderHalvesByNameToNodes(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		_, a, conn := internalPort(t)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		halves := idnodev1.NewIdServiceClient(server.LeaderHalves(conn))
		req := &idnodev1.NextHiLoRequest{Tag: "orders"}
		if _, err := halves.NextHiLo(ctx, req); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("a leader half without the cluster secret: %v, want UNAUTHENTICATED", err)
		}
		ctx = metadata.AppendToOutgoingContext(ctx, "x-idnode-cluster-secret-bin", string(a.Node.FSM().ClusterSecret()))
		if _, err := halves.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|"}); status.Code(err) != codes.Unimplemented {
			t.Fatalf("Generate's leader half: %v, want UNIMPLEMENTED (it is answered where it arrives)", err)
		}
		resp, err := halves.NextHiLo(ctx, req)
		if err != nil || resp.GetLow() != 1 || resp.GetServerTag() != "A" {
			t.Fatalf("NextHiLo's leader half with the secret: %v, %v; want a first range granted by A", resp, err)
		}
	})
}

// A follower relays its callers' issues to the leader in one Forward call; the leader checks
// each as a client's and answers each on its own, a refusal beside a number.
func TestTheInternalPortChecksRelayedIssues(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, a, conn := internalPort(t)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		mustCreateSeries(t, ctx, idnodev1.NewSeriesServiceClient(c.Dial(t, "A")), &idnodev1.CreateSeriesRequest{Name: "INV", Format: "INV-{n:04}"})
		fwd := forwardv1.NewForwardClient(conn)
		valid := &raftv1.SeriesIssue{Series: "inv", RequestId: "r-1", DocumentHash: []byte{1}, IssuedBy: "api_key:k1"}
		if _, err := fwd.IssueSeries(ctx, &forwardv1.IssueSeriesRequest{Issues: []*raftv1.SeriesIssue{valid}}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("relayed issues without the cluster secret: %v, want UNAUTHENTICATED", err)
		}

		ctx = metadata.AppendToOutgoingContext(ctx, "x-idnode-cluster-secret-bin", string(a.Node.FSM().ClusterSecret()))
		for _, bad := range []*raftv1.SeriesIssue{{Series: "inv", DocumentHash: []byte{1}}, {Series: "", RequestId: "r"}, {Database: "no such/db", Series: "inv", RequestId: "r"}} {
			_, err := fwd.IssueSeries(ctx, &forwardv1.IssueSeriesRequest{Issues: []*raftv1.SeriesIssue{bad}})
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("relayed issue %v: %v, want INVALID_ARGUMENT", bad, err)
			}
		}
		unknown := &raftv1.SeriesIssue{Series: "nope", RequestId: "r-2", DocumentHash: []byte{2}}
		resp, err := fwd.IssueSeries(ctx, &forwardv1.IssueSeriesRequest{Issues: []*raftv1.SeriesIssue{valid, unknown}})
		if err != nil || len(resp.GetAnswers()) != 2 {
			t.Fatalf("two relayed issues: %v, %v; want two answers", resp, err)
		}
		if e := resp.GetAnswers()[0].GetEntry(); e.GetNumber() != 1 || e.GetActor() != "api_key:k1" {
			t.Errorf("the valid issue: %v; want number 1 issued by the caller the follower named", resp.GetAnswers()[0])
		}
		if a := resp.GetAnswers()[1]; codes.Code(a.GetCode()) != codes.NotFound || a.GetEntry() != nil {
			t.Errorf("the issue in an unknown series: %v; want NOT_FOUND and no entry", a)
		}
	})
}

// internalPort starts a one-node cluster in virtual time (the caller's synctest bubble: a
// call's deadline cannot pass for want of CPU), waits until its leader has set the cluster
// secret, and dials the node's internal port without the secret, as a stranger would. The
// connection is closed when the test ends.
func internalPort(t *testing.T) (*testCluster, *testNode, *grpc.ClientConn) {
	t.Helper()
	c := newVirtualTestCluster(t, 1)
	a := c.Node("A")
	waitFor(t, "the cluster secret", convergeTimeout, func() (bool, string) {
		return a.Node.FSM().ClusterSecret() != nil, "no secret yet"
	})
	conn, err := grpc.NewClient("passthrough:///"+a.InternalAddr, c.DialOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return c, a, conn
}
