package access

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// withBearer is ctx carrying tok as the caller's bearer token.
func withBearer(ctx context.Context, tok string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
}

// TestAdminToken runs a cluster with --admin-token: admin calls without the token, or with a
// wrong one, get UNAUTHENTICATED on every node; ID calls need none; with the token they work
// through a follower too (it passes the caller's token on to the leader). The nodes' own
// admin calls (self-registration, --join) carry the token: the cluster forms and a node joins.
func TestAdminToken(t *testing.T) {
	t.Parallel()
	const token = "correct horse battery staple"
	c := e2etest.StartCluster(t, "--admin-token", token)
	leader := c.Leader()
	follower := c.Others(leader)[0]

	for _, via := range []string{leader, follower} {
		admin, ids := c.Admin[via], c.Ids[via]
		for _, ctx := range []context.Context{e2etest.RPCCtx(t), withBearer(e2etest.RPCCtx(t), "wrong")} {
			calls := map[string]error{}
			_, calls["AddNode"] = admin.AddNode(ctx, &idnodev1.AddNodeRequest{RaftAddress: "x:1", GrpcAddress: "y:2", NonVoter: true})
			_, calls["RemoveNode"] = admin.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "Z"})
			_, calls["TransferLeadership"] = admin.TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{})
			_, calls["SeedIdentity force"] = ids.SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: "x", Value: 1, Force: true})
			if b, err := admin.Backup(ctx, &idnodev1.BackupRequest{}); err == nil {
				_, calls["Backup"] = b.Recv()
			} else {
				calls["Backup"] = err
			}
			if r, err := admin.Restore(ctx); err == nil {
				_, calls["Restore"] = r.CloseAndRecv()
			} else {
				calls["Restore"] = err
			}
			for name, err := range calls {
				if status.Code(err) != codes.Unauthenticated {
					t.Errorf("%s via %s without the right token: %v, want UNAUTHENTICATED", name, via, err)
				}
			}
		}
		// ID calls need no token. Each is retried while the cluster refuses it for want of a
		// leader, as a client would: a busy machine's election is not what this checks.
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) {
			return ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", RequestId: c.RequestID()})
		}); err != nil {
			t.Errorf("Generate via %s without a token: %v", via, err)
		}
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.SeedIdentityResponse, error) {
			return ids.SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: "invoices", Value: 10})
		}); err != nil {
			t.Errorf("SeedIdentity (raise) via %s without a token: %v", via, err)
		}
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) {
			return ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "carts", RequestId: c.RequestID()})
		}); err != nil {
			t.Errorf("NextHiLo via %s without a token: %v", via, err)
		}
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ListIdentitiesResponse, error) {
			return ids.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
		}); err != nil {
			t.Errorf("ListIdentities via %s without a token: %v", via, err)
		}
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
			return admin.Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		}); err != nil {
			t.Errorf("Status via %s without a token: %v", via, err)
		}
	}

	// With the token, through the follower: it relays the token to the leader.
	if r, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.SeedIdentityResponse, error) {
		return c.Ids[follower].SeedIdentity(withBearer(ctx, token), &idnodev1.SeedIdentityRequest{Name: "invoices", Value: 3, Force: true})
	}); err != nil || r.GetValue() != 3 {
		t.Errorf("forced seed with the token via follower %s: %v, %v", follower, r, err)
	}
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.RemoveNodeResponse, error) {
		return c.Admin[follower].RemoveNode(withBearer(ctx, token), &idnodev1.RemoveNodeRequest{Tag: "Z"})
	}); status.Code(err) != codes.NotFound {
		t.Errorf("RemoveNode Z with the token via follower %s: %v, want NOT_FOUND (authenticated, no such node)", follower, err)
	}
	followerAddr := []string{"IDNODE_ADDR=" + c.Node(follower).GRPCAddr}
	e2etest.WantIdctlFailure(t, 1, followerAddr, []string{"backup", t.TempDir() + "/b"}, "UNAUTHENTICATED", "admin token")
	// The backup (a read) and the forced seed (which sets the same value however often it is
	// applied) are asked again after a refusal for want of a leader, as a client would; the
	// backup must come from a node that led since the term before it.
	term := c.LeaderStatus().GetTerm()
	out := e2etest.MustIdctlRetrying(t, append(followerAddr, "IDNODE_TOKEN="+token), "backup", t.TempDir()+"/b")
	if led := c.LeadersSince(term); !led[e2etest.BackupTakenOn(out)] {
		t.Errorf("idctl backup with IDNODE_TOKEN via follower: %q, want it taken on a leader of term %d or later, %v", out, term, led)
	}
	if out := e2etest.MustIdctlRetrying(t, followerAddr, "--token", token, "seed", "invoices", "7", "--force"); !strings.HasPrefix(out, "invoices = 7") {
		t.Errorf("idctl seed --force --token: %q", out)
	}

	// --join carries the node's token (here from IDNODE_ADMIN_TOKEN); without it the cluster
	// refuses the new node, which stops with the reason.
	dGRPC := e2etest.FreeAddr(t)
	d := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "D", GRPCAddr: dGRPC, Env: []string{"IDNODE_ADMIN_TOKEN=" + token}, RawArgs: []string{
		"--join", c.Node(follower).GRPCAddr, "--data-dir", t.TempDir(), "--grpc-addr", dGRPC, "--raft-addr", e2etest.FreeAddr(t), "--http-addr", "",
	}})
	d.WaitServing(e2etest.ClusterJoinWait)
	eGRPC := e2etest.FreeAddr(t)
	e := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "E", GRPCAddr: eGRPC, RawArgs: []string{
		"--join", c.Node(leader).GRPCAddr, "--data-dir", t.TempDir(), "--grpc-addr", eGRPC, "--raft-addr", e2etest.FreeAddr(t), "--http-addr", "",
	}})
	st, err := e.WaitExit(e2etest.ClusterJoinWait)
	if err != nil || st.ExitCode() != 2 || !strings.Contains(e.Logs.String(), "admin token") {
		t.Errorf("a join without the token: %v, %v; want exit 2 naming the admin token\n%s", st, err, e.Logs.String())
	}
}
