package access

import (
	"context"
	"crypto/tls"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/tlsconfig"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
)

// TestTLSClusterRefusesPlaintext runs three nodes with TLS: they form a cluster over mutual
// TLS (Raft, and forwarding to the leader), a TLS client works through every node, a
// plaintext client and a client that does not trust the CA are refused.
func TestTLSClusterRefusesPlaintext(t *testing.T) {
	t.Parallel()
	dir := e2etest.TLSCerts(t, "A", "B", "C")
	ca := filepath.Join(dir, "ca.crt")
	tc, err := tlsconfig.Client(ca, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	creds := credentials.NewTLS(tc)
	nodes := e2etest.StartNodes(t, e2etest.ClusterTags, e2etest.TLSFlags(dir), creds)

	// Identities through every node: followers relay to the leader over mutual TLS. Each is
	// asked again with its request id after a refusal for want of a leader, as a client would.
	for i, p := range nodes {
		ids := idnodev1.NewIdServiceClient(e2etest.DialOver(t, p.GRPCAddr, creds))
		req := &idnodev1.GenerateRequest{Id: "orders|", RequestId: fmt.Sprintf("tls-orders-%d", i)}
		resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) { return ids.Generate(ctx, req) })
		if want := fmt.Sprintf("orders/%d", i+1); err != nil || len(resp.GetIds()) != 1 || resp.GetIds()[0] != want {
			t.Fatalf("Generate(orders|) via %s over TLS = %v, %v; want %s", p.Tag, resp, err, want)
		}
	}

	// A plaintext client gets nothing.
	plain := healthpb.NewHealthClient(e2etest.DialOver(t, nodes[0].GRPCAddr, nil))
	if _, err := plain.Check(e2etest.RPCCtx(t), &healthpb.HealthCheckRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("plaintext health check on a TLS node: %v, want UNAVAILABLE", err)
	}
	// Nor does a client that does not trust the cluster's CA.
	stranger := healthpb.NewHealthClient(e2etest.DialOver(t, nodes[0].GRPCAddr, credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})))
	if _, err := stranger.Check(e2etest.RPCCtx(t), &healthpb.HealthCheckRequest{}); err == nil {
		t.Error("a client without the cluster's CA was answered")
	}

	// idctl over TLS: every node is reachable from every other (the status probes go over
	// mutual TLS too) and answers with its own term. A probe has 300 ms, which a mutual TLS
	// handshake on a loaded machine can overrun: status is asked until every node shows
	// reachable, within LeaderTimeout.
	env := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(nodes...), "IDNODE_TLS_CA=" + ca}
	e2etest.Eventually(t, e2etest.LeaderTimeout, "idctl status over TLS to show three nodes, each reachable and answering", func() error {
		st := e2etest.IdctlStatus(t, env)
		if len(st.Nodes) != 3 {
			return fmt.Errorf("status over TLS: %+v", st)
		}
		for _, n := range st.Nodes {
			if !n.Reachable || !n.Answered {
				return fmt.Errorf("status over TLS, node %s: %+v", n.Tag, n)
			}
		}
		return nil
	})
	if got := e2etest.MustIdctlRetrying(t, env, "next", "orders|", "--request-id", "tls-idctl-orders"); got != "orders/4\n" {
		t.Errorf("idctl next over TLS = %q", got)
	}
	e2etest.WantIdctlFailure(t, 1, []string{"IDNODE_ADDR=" + nodes[0].GRPCAddr}, []string{"next", "orders|"}, "UNAVAILABLE")

	// `idnode health` (the container health check) speaks TLS when given the CA.
	bin := e2etest.BuildIdnode(t)
	health := func(env []string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout*2)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"health", "--addr", nodes[1].GRPCAddr}, args...)...)
		cmd.Env = nodeenv.Clean(env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := health([]string{"IDNODE_TLS_CA=" + ca}); err != nil || !strings.Contains(out, "SERVING") {
		t.Errorf("idnode health with IDNODE_TLS_CA: %v: %s", err, out)
	}
	if _, err := health(nil); err == nil {
		t.Error("idnode health without TLS succeeded against a TLS node")
	}

	// grpcurl, as docs/tls.md shows it, when it is installed.
	grpcurl, err := exec.LookPath("grpcurl")
	if err != nil {
		t.Logf("grpcurl not on PATH: its part of the test is left out")
		return
	}
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout*2)
		defer cancel()
		out, err := exec.CommandContext(ctx, grpcurl, args...).CombinedOutput()
		return string(out), err
	}
	if out, err := run("-cacert", ca, "-d", `{"id":"orders|"}`, nodes[2].GRPCAddr, "idnode.v1.IdService/Generate"); err != nil || !strings.Contains(out, "orders/5") {
		t.Errorf("grpcurl -cacert: %v: %s", err, out)
	}
	if out, err := run("-plaintext", nodes[2].GRPCAddr, "list"); err == nil {
		t.Errorf("grpcurl -plaintext against a TLS node succeeded: %s", out)
	}
}
