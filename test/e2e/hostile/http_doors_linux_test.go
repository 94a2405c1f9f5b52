//go:build linux

package hostile

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/internal/tlsconfig"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// A node with mutual TLS required and an admin token has no second door:
// every TCP port the process listens on, dialled in plaintext gRPC by another process with the
// metadata the HTTP gateway once used to name its caller (loopback peer, admin certificate),
// refuses CreateKey. The ports come from /proc, so a private listener the node never
// announced is tried too.
func TestHTTPGatewayHasNoSecondDoor(t *testing.T) {
	t.Parallel()
	dir := e2etest.TLSCerts(t, "A")
	httpPort := loopback.FreePort(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{HTTPAddr: fmt.Sprintf("127.0.0.1:%d", httpPort),
		Extra: append(e2etest.TLSFlags(dir)("A"), "--tls-client-auth", "require"),
		Env:   []string{"IDNODE_ADMIN_TOKEN=secret-admin-token"}})
	cert, key := filepath.Join(dir, "A.crt"), filepath.Join(dir, "A.key")
	tc, err := tlsconfig.Client(filepath.Join(dir, "ca.crt"), cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	e2etest.WaitServingOver(t, p, credentials.NewTLS(tc), e2etest.ServeTimeout)

	cmd, _ := p.Current()
	ports := listeningPorts(t, cmd.Process.Pid)
	if len(ports) < 3 {
		t.Fatalf("node listens on %v; want at least gRPC, Raft and HTTP", ports)
	}
	forged := metadata.Pairs("idnode-http-peer", "127.0.0.1:1", "idnode-http-admin-cert", "true")
	for _, port := range ports {
		addr := net.JoinHostPort("127.0.0.1", fmt.Sprint(port))
		admin := idnodev1.NewClusterServiceClient(e2etest.DialOver(t, addr, nil))
		ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), forged), e2etest.RPCTimeout)
		resp, err := admin.CreateKey(ctx, &idnodev1.CreateKeyRequest{Database: "default", Role: "admin"})
		cancel()
		if err == nil {
			t.Errorf("CreateKey in plaintext on port %d (node ports %v) with forged gateway metadata = key %s; want a refusal", port, ports, resp.GetId())
		}
	}
}
