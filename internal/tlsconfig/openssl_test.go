package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/helpers/opensslcert"
)

// A certificate has a role only when it is marked for it: a node's needs OU=idnode-node and
// serverAuth, an admin's OU=idnode-admin and clientAuth. Certificates made by
// openssl, the way an operator's own PKI makes them; above all a plain `openssl x509 -req`
// one, with no extended key usage, which Go's verifier accepts for every use and which used
// to count as a node's, and so as an admin.
func TestRolesOfOpenSSLCertificates(t *testing.T) {
	ca := opensslcert.New(t)
	const (
		both   = "extendedKeyUsage = serverAuth, clientAuth"
		client = "extendedKeyUsage = clientAuth"
		server = "extendedKeyUsage = serverAuth"
	)
	san := "subjectAltName = IP:127.0.0.1"
	for _, tc := range []struct {
		name, subj  string
		ext         []string
		node, admin bool
	}{
		{"plain", "/CN=plain", nil, false, false},
		{"admin marker, no usage", "/CN=ops/OU=" + AdminUnit, nil, false, false},
		{"node marker, no usage", "/CN=A/OU=" + NodeUnit, []string{san}, false, false},
		{"server and client usage, no marker (idctl certs node before the node mark)", "/CN=A", []string{both, san}, false, false},
		{"node", "/CN=A/OU=" + NodeUnit, []string{both, san}, true, false},
		{"admin", "/CN=ops/OU=" + AdminUnit, []string{client}, false, true},
		{"admin marker, server usage", "/CN=ops/OU=" + AdminUnit, []string{server}, false, false},
		{"node marker, client usage", "/CN=A/OU=" + NodeUnit, []string{client}, false, false},
	} {
		certFile, keyFile := ca.Issue(strings.ReplaceAll(tc.name, " ", "_"), tc.subj, tc.ext...)
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		leaf := pair.Leaf
		if got := IsNode(leaf); got != tc.node {
			t.Errorf("%s: IsNode = %v, want %v", tc.name, got, tc.node)
		}
		if got := IsAdmin(leaf); got != tc.admin {
			t.Errorf("%s: IsAdmin = %v, want %v", tc.name, got, tc.admin)
		}
		verified := tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{leaf}}}
		if got := GrantsAdmin(verified); got != (tc.node || tc.admin) {
			t.Errorf("%s: GrantsAdmin = %v, want %v", tc.name, got, tc.node || tc.admin)
		}
	}
}

// The peer port (Raft, forwarding) takes an openssl-made node certificate with the marker and
// refuses a plain one the same CA signed.
func TestPeerPortTakesOnlyMarkedNodes(t *testing.T) {
	ca := opensslcert.New(t)
	san := "subjectAltName = IP:127.0.0.1"
	both := "extendedKeyUsage = serverAuth, clientAuth"
	nodeCert, nodeKey := ca.Issue("A", "/CN=A/OU="+NodeUnit, both, san)
	node, err := Load(nodeCert, nodeKey, ca.Cert)
	if err != nil {
		t.Fatal(err)
	}
	otherCert, otherKey := ca.Issue("B", "/CN=B/OU="+NodeUnit, both, san)
	other, err := Load(otherCert, otherKey, ca.Cert)
	if err != nil {
		t.Fatal(err)
	}
	if cerr, serr := handshake(t, node.Peer(), other.Peer()); cerr != nil || serr != nil {
		t.Fatalf("two marked node certificates: client %v, server %v", cerr, serr)
	}
	plainCert, plainKey := ca.Issue("plain", "/CN=plain", san)
	plain, err := Load(plainCert, plainKey, ca.Cert)
	if err != nil {
		t.Fatal(err)
	}
	if _, serr := handshake(t, node.Peer(), plain.Peer()); serr == nil || !strings.Contains(serr.Error(), "only node certificates") {
		t.Errorf("peer port, plain certificate without extensions: %v; want refused as not a node's", serr)
	}
}
