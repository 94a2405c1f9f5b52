package access

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/tlsconfig"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// With --tls-client-auth require and no admin token, a node on the network refuses clients
// without a certificate, takes ID calls from any client certificate its CA signed, and admin
// calls only from one with the admin role (`idctl certs client NAME --admin`): mTLS with no
// shared secret. Every call goes through a non-loopback address of the machine.
func TestMutualTLSAdminRole(t *testing.T) {
	t.Parallel()
	ip := needNonLoopbackIP(t)
	dir := t.TempDir()
	e2etest.MustIdctl(t, nil, "certs", "ca", "--dir", dir)
	e2etest.MustIdctl(t, nil, "certs", "node", "A", "--dir", dir, "--host", ip)
	e2etest.MustIdctl(t, nil, "certs", "client", "app", "--dir", dir)
	if out := e2etest.MustIdctl(t, nil, "certs", "client", "ops", "--dir", dir, "--admin"); !strings.Contains(out, "admin client") {
		t.Fatalf("certs client --admin: %q", out)
	}
	other := t.TempDir()
	e2etest.MustIdctl(t, nil, "certs", "ca", "--dir", other)
	e2etest.MustIdctl(t, nil, "certs", "client", "intruder", "--dir", other, "--admin")

	ca := filepath.Join(dir, "ca.crt")
	creds := func(certDir, name string) credentials.TransportCredentials {
		t.Helper()
		var cert, key string
		if name != "" {
			cert, key = filepath.Join(certDir, name+".crt"), filepath.Join(certDir, name+".key")
		}
		tc, err := tlsconfig.Client(ca, cert, key, "")
		if err != nil {
			t.Fatal(err)
		}
		return credentials.NewTLS(tc)
	}
	port, httpPort := loopback.FreePort(t), loopback.FreePort(t)
	e2etest.StartNode(t, e2etest.NodeOpts{GRPCAddr: fmt.Sprintf("0.0.0.0:%d", port), HTTPAddr: fmt.Sprintf("0.0.0.0:%d", httpPort),
		Extra: append(e2etest.TLSFlags(dir)("A"), "--tls-client-auth", "require")})
	remote := net.JoinHostPort(ip, fmt.Sprint(port))
	opsHealth := healthpb.NewHealthClient(e2etest.DialOver(t, remote, creds(dir, "ops")))
	e2etest.Eventually(t, e2etest.ServeTimeout, "node A SERVING through "+remote, func() error {
		resp, err := opsHealth.Check(e2etest.RPCCtx(t), &healthpb.HealthCheckRequest{})
		if err == nil && resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			err = fmt.Errorf("%s", resp.GetStatus())
		}
		return err
	})

	// No certificate, or one from another CA: no call at all.
	for name, c := range map[string]credentials.TransportCredentials{"no certificate": creds(dir, ""), "another CA's admin certificate": creds(other, "intruder")} {
		hc := healthpb.NewHealthClient(e2etest.DialOver(t, remote, c))
		if _, err := hc.Check(e2etest.RPCCtx(t), &healthpb.HealthCheckRequest{}); status.Code(err) != codes.Unavailable {
			t.Errorf("%s: health check = %v; want UNAVAILABLE (refused at the handshake)", name, err)
		}
	}

	appConn, opsConn := e2etest.DialOver(t, remote, creds(dir, "app")), e2etest.DialOver(t, remote, creds(dir, "ops"))
	appIDs, appAdmin := idnodev1.NewIdServiceClient(appConn), idnodev1.NewClusterServiceClient(appConn)
	opsIDs, opsAdmin := idnodev1.NewIdServiceClient(opsConn), idnodev1.NewClusterServiceClient(opsConn)

	// A client certificate without the role: ID calls yes, admin calls no, and nothing changes.
	if got := e2etest.Generate(t, appIDs, &idnodev1.GenerateRequest{Id: "x|"}); got != "x/1" {
		t.Fatalf("x| with a client certificate = %s, want x/1", got)
	}
	_, err := appAdmin.AddNode(e2etest.RPCCtx(t), &idnodev1.AddNodeRequest{Tag: "D", RaftAddress: "10.255.0.1:7000", GrpcAddress: "10.255.0.1:7070"})
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), tlsconfig.AdminUnit) {
		t.Fatalf("AddNode with a client certificate without the admin role: %v; want PERMISSION_DENIED naming OU=%s", err, tlsconfig.AdminUnit)
	}
	if _, err := appIDs.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "x", Value: 0, Force: true}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("forced seed with a client certificate without the admin role: %v; want PERMISSION_DENIED", err)
	}
	st, err := opsAdmin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil || len(st.GetNodes()) != 1 {
		t.Fatalf("members after the refused AddNode: %v, %v; want node A alone", st.GetNodes(), err)
	}

	// The admin certificate: admin calls, with no token anywhere.
	if v, err := opsIDs.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "y", Value: 7, Force: true}); err != nil || v.GetValue() != 7 {
		t.Fatalf("forced seed with the admin certificate: %v, %v", v, err)
	}
	key, err := opsAdmin.CreateKey(e2etest.RPCCtx(t), &idnodev1.CreateKeyRequest{Role: "writer"})
	if err != nil {
		t.Fatalf("CreateKey with the admin certificate: %v", err)
	}
	// Keys are on now: the plain client certificate needs one, the admin certificate does not.
	if _, err := appIDs.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "x|"}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("x| with a client certificate and no key, once keys exist: %v; want UNAUTHENTICATED", err)
	}
	withKey := metadata.AppendToOutgoingContext(e2etest.RPCCtx(t), "authorization", "Bearer "+key.GetKey())
	if resp, err := appIDs.Generate(withKey, &idnodev1.GenerateRequest{Id: "x|"}); err != nil || resp.GetIds()[0] != "x/2" {
		t.Fatalf("x| with a client certificate and a key: %v, %v; want x/2", resp, err)
	}
	if got := e2etest.Generate(t, opsIDs, &idnodev1.GenerateRequest{Id: "y|"}); got != "y/8" {
		t.Fatalf("y| with the admin certificate = %s, want y/8", got)
	}

	// HTTPS on the HTTP port, with the same rules: a certificate is required, and admin goes by
	// the certificate's role, judged for the HTTP client, not for the gateway behind it.
	https := func(certDir, name string) *http.Client {
		t.Helper()
		var cert, key string
		if name != "" {
			cert, key = filepath.Join(certDir, name+".crt"), filepath.Join(certDir, name+".key")
		}
		tc, err := tlsconfig.Client(ca, cert, key, "")
		if err != nil {
			t.Fatal(err)
		}
		return &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: e2etest.RPCTimeout * 2}
	}
	httpURL := "https://" + net.JoinHostPort(ip, fmt.Sprint(httpPort))
	post := func(c *http.Client, path, body string) int {
		t.Helper()
		resp, err := c.Post(httpURL+path, "application/json", strings.NewReader(body))
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(https(dir, ""), "/v1/ids", `{"id":"x|"}`); code != 0 {
		t.Errorf("HTTPS without a client certificate = %d; want the handshake refused", code)
	}
	if code := post(https(dir, "app"), "/v1/databases", `{"name":"viahttp"}`); code != http.StatusForbidden {
		t.Errorf("POST /v1/databases with the app certificate = %d; want 403", code)
	}
	if code := post(https(dir, "ops"), "/v1/databases", `{"name":"viahttp"}`); code != http.StatusOK {
		t.Errorf("POST /v1/databases with the admin certificate = %d; want 200", code)
	}

	// idctl presents the same certificates.
	env := func(name string) []string {
		return []string{"IDNODE_ADDR=" + remote, "IDNODE_TLS_CA=" + ca,
			"IDNODE_TLS_CERT=" + filepath.Join(dir, name+".crt"), "IDNODE_TLS_KEY=" + filepath.Join(dir, name+".key")}
	}
	e2etest.WantIdctlFailure(t, 1, env("app"), []string{"db", "create", "billing"}, "PERMISSION_DENIED")
	e2etest.MustIdctl(t, env("ops"), "db", "create", "billing")
	if out := e2etest.MustIdctl(t, env("ops"), "db", "list"); !strings.Contains(out, "billing") {
		t.Fatalf("db list after db create billing with the admin certificate:\n%s", out)
	}
}
