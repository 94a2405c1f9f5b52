package cluster

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/history"
)

// membership is what Status says of every node, sorted: tag, id, addresses, voter.
func membership(t *testing.T, c *e2etest.Cluster, via string) []string {
	t.Helper()
	st, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
		return c.Admin[via].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
	})
	if err != nil {
		t.Fatalf("Status via %s: %v", via, err)
	}
	var out []string
	for _, n := range st.GetNodes() {
		out = append(out, strings.Join([]string{n.GetTag(), n.GetId(), n.GetRaftAddress(), n.GetGrpcAddress(), boolWord(n.GetVoter())}, " "))
	}
	slices.Sort(out)
	return out
}

func boolWord(b bool) string {
	if b {
		return "voter"
	}
	return "nonvoter"
}

// `idctl node add` with a tag in use, or with another node's address, used
// to succeed and repoint the live node, so that after the leader died the survivors had no
// quorum. Now it is refused with ALREADY_EXISTS and the cluster is as it was.
func TestClusterAddNodeRefusesWhatIsInUse(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	leader := c.Leader()
	survivors := c.Others(leader)
	env := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(c.Nodes...)}
	before := membership(t, c, leader)

	// A refusal for want of a leader, while the nodes elect one on a busy machine, is retried:
	// each add must then be refused for what it asks.
	b := c.Node(survivors[0])
	e2etest.WantIdctlRefusal(t, 1, env, []string{"node", "add", b.Tag, "--raft-addr", e2etest.FreeAddr(t), "--grpc-addr", e2etest.FreeAddr(t)}, "ALREADY_EXISTS", "node "+b.Tag+" (raft id")
	e2etest.WantIdctlRefusal(t, 1, env, []string{"node", "add", "D", "--raft-addr", b.RaftAddr, "--grpc-addr", e2etest.FreeAddr(t)}, "ALREADY_EXISTS", b.RaftAddr)
	e2etest.WantIdctlRefusal(t, 1, env, []string{"node", "add", "-", "--raft-addr", e2etest.FreeAddr(t), "--grpc-addr", b.GRPCAddr}, "ALREADY_EXISTS", b.GRPCAddr)
	if after := membership(t, c, leader); !slices.Equal(after, before) {
		t.Fatalf("refused adds changed the cluster:\nbefore %q\nafter  %q", before, after)
	}

	c.MustIdentity(rec, "orders", 1, leader)
	c.Node(leader).Kill9()
	if _, _, err := c.Identity(rec, "orders", 1, slices.Index(e2etest.ClusterTags, survivors[0]), time.Second, e2etest.FailoverLimit); err != nil {
		t.Fatalf("after the leader died, the two survivors have no quorum: %v", err)
	}
	e2etest.CheckHistory(t, rec)
}

// A join that fails used to leave a dead voter behind, and a cluster of
// one plus that voter had no quorum for good. A port in use now stops the node before it asks
// to join; a failure after the cluster added it removes it again.
func TestJoinThatFailsLeavesNoVoter(t *testing.T) {
	t.Parallel()
	a := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "A"})
	a.WaitServing(e2etest.ServeTimeout)
	ids, admin := e2etest.Dial(t, a.GRPCAddr)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()

	for _, tc := range []struct{ name, want string }{
		{"gRPC port in use", "--grpc-addr"},
		{"metrics port in use, bound after the join", "--metrics-addr"},
	} {
		args := []string{"--join", a.GRPCAddr, "--data-dir", t.TempDir(), "--raft-addr", e2etest.FreeAddr(t)}
		if tc.want == "--grpc-addr" {
			args = append(args, "--grpc-addr", taken.Addr().String())
		} else {
			args = append(args, "--grpc-addr", e2etest.FreeAddr(t), "--metrics-addr", taken.Addr().String())
		}
		out, code := runIdnode(t, args...)
		if code <= 0 || !strings.Contains(out, "address already in use") {
			t.Errorf("%s: exit %d, output %q; want a non-zero exit naming the port", tc.name, code, out)
		}
		st, err := admin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			t.Fatalf("%s: Status: %v", tc.name, err)
		}
		if len(st.GetNodes()) != 1 {
			t.Errorf("%s: the cluster holds %v after the failed join, want A alone", tc.name, st.GetNodes())
		}
		if _, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders|"}); err != nil {
			t.Errorf("%s: A lost its quorum: %v", tc.name, err)
		}
		t.Logf("%s: %s", tc.name, strings.TrimSpace(out))
	}
}

// runIdnode runs the daemon to its exit and returns its output and exit code.
func runIdnode(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.ClusterJoinWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2etest.BuildIdnode(t), args...)
	cmd.Dir, cmd.Env = t.TempDir(), nodeenv.Clean()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("idnode %s: no exit within %v", strings.Join(args, " "), e2etest.ClusterJoinWait)
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("idnode %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

// An AddNode that spells a member's address another way (localhost for
// 127.0.0.1) used to register a second member at that member's endpoint; as a voter it would
// count toward the quorum and never answer. Now it is refused by what the address resolves to.
func TestClusterAddNodeComparesResolvedAddresses(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	leader := c.Leader()
	b := c.Node(c.Others(leader)[0])
	before := membership(t, c, leader)
	respell := func(addr string) string {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		return net.JoinHostPort("localhost", port)
	}
	for _, req := range []*idnodev1.AddNodeRequest{
		{Tag: "D", RaftAddress: respell(b.RaftAddr), GrpcAddress: e2etest.FreeAddr(t), NonVoter: true},
		{Tag: "E", RaftAddress: e2etest.FreeAddr(t), GrpcAddress: respell(b.GRPCAddr), NonVoter: true},
	} {
		// The leader decides; through an election the refused add is asked again.
		_, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.AddNodeResponse, error) {
			return c.Admin[leader].AddNode(ctx, req)
		})
		if status.Code(err) != codes.AlreadyExists || !strings.Contains(status.Convert(err).Message(), "node "+b.Tag) {
			t.Errorf("AddNode(raft %s, grpc %s) = %v; want ALREADY_EXISTS naming node %s", req.RaftAddress, req.GrpcAddress, err, b.Tag)
		}
	}
	if after := membership(t, c, leader); !slices.Equal(after, before) {
		t.Fatalf("refused adds changed the cluster:\nbefore %q\nafter  %q", before, after)
	}
}

// RemoveNode of the last voter answered INTERNAL (raft's "need at least one
// voter in configuration") after retiring its tag. Now it is FAILED_PRECONDITION saying what to
// do, and the node keeps working.
func TestRemoveLastVoterIsRefused(t *testing.T) {
	t.Parallel()
	a := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "A"})
	a.WaitServing(e2etest.ServeTimeout)
	ids, admin := e2etest.Dial(t, a.GRPCAddr)
	_, err := admin.RemoveNode(e2etest.RPCCtx(t), &idnodev1.RemoveNodeRequest{Tag: "A"})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(status.Convert(err).Message(), "last voter") {
		t.Fatalf("RemoveNode of the last voter = %v; want FAILED_PRECONDITION naming the last voter", err)
	}
	if _, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders|"}); err != nil {
		t.Fatalf("after the refused remove: %v", err)
	}
	st, err := admin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil || len(st.GetNodes()) != 1 || st.GetNodes()[0].GetTag() != "A" {
		t.Fatalf("Status after the refused remove: %v, %v; want A alone", st.GetNodes(), err)
	}
}
