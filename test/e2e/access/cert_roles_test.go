package access

import (
	"io"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/tlsconfig"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/opensslcert"
)

// A certificate the cluster's CA signed has a role only when it is marked for it:
// a plain `openssl x509 -req` certificate (no extensions, which Go accepts for every
// use) used to count as a node's, and so as an admin: CreateDatabase, AddNode, Backup and
// CreateKey worked with it. Every certificate here is made by the openssl command, the node's
// included, and the node has an admin token, so loopback alone grants nothing.
func TestCertificateRolesNeedTheirMarks(t *testing.T) {
	t.Parallel()
	ca := opensslcert.New(t)
	san := "subjectAltName = IP:127.0.0.1, DNS:localhost"
	nodeCert, nodeKey := ca.Issue("A", "/CN=A/OU="+tlsconfig.NodeUnit, "extendedKeyUsage = serverAuth, clientAuth", san)
	p := e2etest.StartNode(t, e2etest.NodeOpts{Extra: []string{"--tls-cert", nodeCert, "--tls-key", nodeKey, "--tls-ca", ca.Cert,
		"--admin-token", "t0ken-for-cert-roles"}})
	creds := func(cert, key string) credentials.TransportCredentials {
		t.Helper()
		tc, err := tlsconfig.Client(ca.Cert, cert, key, "")
		if err != nil {
			t.Fatal(err)
		}
		return credentials.NewTLS(tc)
	}
	e2etest.WaitServingOver(t, p, creds("", ""), e2etest.ServeTimeout)

	noRole := map[string][2]string{}
	for name, c := range map[string]struct{ subj, ext string }{
		"plain (no extensions)":             {"/CN=plain", ""},
		"admin mark without clientAuth":     {"/CN=ops/OU=" + tlsconfig.AdminUnit, ""},
		"node usages without the node mark": {"/CN=B", "extendedKeyUsage = serverAuth, clientAuth"},
		"node mark without serverAuth":      {"/CN=C/OU=" + tlsconfig.NodeUnit, "extendedKeyUsage = clientAuth"},
	} {
		var ext []string
		if c.ext != "" {
			ext = []string{c.ext}
		}
		cert, key := ca.Issue(strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(name), c.subj, ext...)
		noRole[name] = [2]string{cert, key}
	}
	for name, files := range noRole {
		conn := e2etest.DialOver(t, p.GRPCAddr, creds(files[0], files[1]))
		ids, admin := idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn)
		// ID calls: any certificate the CA signed may make them.
		if _, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "x|"}); err != nil {
			t.Errorf("%s: Generate: %v", name, err)
		}
		refused := func(call string, err error) {
			t.Helper()
			if c := status.Code(err); c != codes.Unauthenticated && c != codes.PermissionDenied {
				t.Errorf("%s: %s = %v; want refused (UNAUTHENTICATED or PERMISSION_DENIED)", name, call, err)
			}
		}
		_, err := admin.CreateDatabase(e2etest.RPCCtx(t), &idnodev1.CreateDatabaseRequest{Name: "stolen"})
		refused("CreateDatabase", err)
		_, err = admin.AddNode(e2etest.RPCCtx(t), &idnodev1.AddNodeRequest{Tag: "D", RaftAddress: "127.0.0.1:1", GrpcAddress: "127.0.0.1:2"})
		refused("AddNode", err)
		_, err = admin.CreateKey(e2etest.RPCCtx(t), &idnodev1.CreateKeyRequest{Role: "admin"})
		refused("CreateKey", err)
		stream, err := admin.Backup(e2etest.RPCCtx(t), &idnodev1.BackupRequest{})
		if err == nil {
			_, err = stream.Recv()
		}
		if err == io.EOF {
			err = nil
		}
		refused("Backup", err)
	}

	// The admin mark with clientAuth, made by openssl as another PKI would: admin calls work.
	opsCert, opsKey := ca.Issue("ops", "/CN=ops/OU="+tlsconfig.AdminUnit, "extendedKeyUsage = clientAuth")
	ops := idnodev1.NewClusterServiceClient(e2etest.DialOver(t, p.GRPCAddr, creds(opsCert, opsKey)))
	if _, err := ops.CreateDatabase(e2etest.RPCCtx(t), &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
		t.Fatalf("CreateDatabase with an admin certificate: %v", err)
	}
	dbs, err := ops.ListDatabases(e2etest.RPCCtx(t), &idnodev1.ListDatabasesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs.GetDatabases() {
		if db.GetName() == "stolen" {
			t.Errorf("a certificate without a role created database %q", db.GetName())
		}
	}
	st, err := ops.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil || len(st.GetNodes()) != 1 {
		t.Errorf("members: %v, %v; want node A alone (no AddNode got through)", st.GetNodes(), err)
	}
	keys, err := ops.ListKeys(e2etest.RPCCtx(t), &idnodev1.ListKeysRequest{})
	if err != nil || len(keys.GetKeys()) != 0 {
		t.Errorf("keys: %v, %v; want none (no CreateKey got through)", keys.GetKeys(), err)
	}
}
