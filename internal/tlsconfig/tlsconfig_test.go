package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// files writes a CA and one certificate for 127.0.0.1 into a temp dir.
func files(t *testing.T, ca *Authority, name string) (cert, key, caFile string) {
	t.Helper()
	dir := t.TempDir()
	certPEM, keyPEM, err := ca.Issue(name, []string{"127.0.0.1", "localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, caFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key"), filepath.Join(dir, "ca.crt")
	for path, data := range map[string][]byte{cert: certPEM, key: keyPEM, caFile: ca.CertPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cert, key, caFile
}

// clientFiles writes a client certificate (IssueClient) and its key into a temp dir.
func clientFiles(t *testing.T, ca *Authority, name string, admin bool) (cert, key string) {
	t.Helper()
	certPEM, keyPEM, err := ca.IssueClient(name, admin, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	for path, data := range map[string][]byte{cert: certPEM, key: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cert, key
}

func newCA(t *testing.T) *Authority {
	t.Helper()
	ca, err := NewAuthority("test CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// handshake runs one TLS handshake between server and client configs over loopback and
// returns the client's error and the server's.
func handshake(t *testing.T, server, client *tls.Config) (clientErr, serverErr error) {
	t.Helper()
	l, err := tls.Listen("tcp", "127.0.0.1:0", server)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srvErr := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			srvErr <- err
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		srvErr <- c.(*tls.Conn).Handshake()
	}()
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: client}
	c, err := d.Dial("tcp", l.Addr().String())
	if err == nil {
		// TLS 1.3: a client certificate refused by the server shows on the first read.
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, err = c.Read(make([]byte, 1))
		if err != nil && strings.Contains(err.Error(), "EOF") {
			err = nil
		}
		c.Close()
	}
	return err, <-srvErr
}

func TestLoadNeedsAllOrNothing(t *testing.T) {
	if n, err := Load("", "", ""); n != nil || err != nil {
		t.Fatalf("no files: %v, %v; want TLS off", n, err)
	}
	cert, key, ca := files(t, newCA(t), "A")
	if _, err := Load(cert, key, ""); err == nil || !strings.Contains(err.Error(), "all three") {
		t.Errorf("cert and key without CA: %v", err)
	}
	if _, err := Load(cert, filepath.Join(t.TempDir(), "missing"), ca); err == nil {
		t.Error("a missing key was accepted")
	}
	if _, err := Load(cert, key, key); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a key as CA: %v", err)
	}
	if _, err := Load(cert, key, ca); err != nil {
		t.Fatal(err)
	}
}

func TestNodesSpeakMutualTLS(t *testing.T) {
	ca := newCA(t)
	a, err := Load(files(t, ca, "A"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(files(t, ca, "B"))
	if err != nil {
		t.Fatal(err)
	}
	if cerr, serr := handshake(t, a.Peer(), b.Peer()); cerr != nil || serr != nil {
		t.Fatalf("node to node: client %v, server %v", cerr, serr)
	}
	// A client without a certificate may not speak to a node's peer port.
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	anon, err := Client(caFile, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, serr := handshake(t, a.Peer(), anon); serr == nil {
		t.Error("the peer port accepted a client without a certificate")
	}
	// A node of another CA is refused both ways.
	stranger, err := Load(files(t, newCA(t), "X"))
	if err != nil {
		t.Fatal(err)
	}
	if cerr, serr := handshake(t, a.Peer(), stranger.Peer()); cerr == nil && serr == nil {
		t.Error("a node with a certificate from another CA was accepted")
	}
}

func TestClientsSpeakServerAuthTLS(t *testing.T) {
	ca := newCA(t)
	cert, key, caFile := files(t, ca, "A")
	node, err := Load(cert, key, caFile)
	if err != nil {
		t.Fatal(err)
	}
	anon, err := Client(caFile, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if cerr, serr := handshake(t, node.Server(tls.VerifyClientCertIfGiven), anon); cerr != nil || serr != nil {
		t.Fatalf("client without a certificate: client %v, server %v", cerr, serr)
	}
	withCert, err := Client(caFile, cert, key, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	if cerr, serr := handshake(t, node.Server(tls.VerifyClientCertIfGiven), withCert); cerr != nil || serr != nil {
		t.Fatalf("client with a certificate: client %v, server %v", cerr, serr)
	}
	wrongName, err := Client(caFile, "", "", "raft-z")
	if err != nil {
		t.Fatal(err)
	}
	if cerr, _ := handshake(t, node.Server(tls.VerifyClientCertIfGiven), wrongName); cerr == nil {
		t.Error("a certificate was accepted for a name it does not carry")
	}
	if _, err := Client(caFile, cert, "", ""); err == nil {
		t.Error("a client certificate without its key was accepted")
	}
}

func TestAuthorityRoundTrip(t *testing.T) {
	ca := newCA(t)
	again, err := LoadAuthority(ca.CertPEM, ca.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := again.Issue("B", []string{"raft-b", "10.0.0.2"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNode(certPEM, keyPEM, ca.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf := n.cert.Leaf
	if leaf == nil || len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != "raft-b" || len(leaf.IPAddresses) != 1 {
		t.Fatalf("issued certificate names: %+v", leaf)
	}
	if _, err := LoadAuthority(certPEM, keyPEM); err == nil {
		t.Error("a node certificate was loaded as a CA")
	}
}

// --tls-client-auth require: a client without a certificate is refused at the handshake, one
// with a client certificate from the CA is taken, one from another CA is refused.
func TestRequireClientCertificate(t *testing.T) {
	ca := newCA(t)
	cert, key, caFile := files(t, ca, "A")
	node, err := Load(cert, key, caFile)
	if err != nil {
		t.Fatal(err)
	}
	require, err := ParseClientAuth(ClientAuthRequire)
	if err != nil {
		t.Fatal(err)
	}
	anon, err := Client(caFile, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, serr := handshake(t, node.Server(require), anon); serr == nil {
		t.Error("require took a client without a certificate")
	}
	appCert, appKey := clientFiles(t, ca, "app", false)
	app, err := Client(caFile, appCert, appKey, "")
	if err != nil {
		t.Fatal(err)
	}
	if cerr, serr := handshake(t, node.Server(require), app); cerr != nil || serr != nil {
		t.Fatalf("require, client certificate from the CA: client %v, server %v", cerr, serr)
	}
	otherCert, otherKey := clientFiles(t, newCA(t), "intruder", true)
	other, err := Client(caFile, otherCert, otherKey, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{ClientAuthRequest, ClientAuthRequire} {
		auth, err := ParseClientAuth(policy)
		if err != nil {
			t.Fatal(err)
		}
		if _, serr := handshake(t, node.Server(auth), other); serr == nil {
			t.Errorf("%s took a certificate from another CA", policy)
		}
	}
	if _, err := ParseClientAuth("optional"); err == nil || !strings.Contains(err.Error(), "require") {
		t.Errorf("ParseClientAuth(optional): %v; want an error naming the policies", err)
	}
}

// A client certificate signed by the cluster's CA does not make its holder a node: the peer
// port (Raft and forwarding) refuses it.
func TestPeerPortRefusesClientCertificates(t *testing.T) {
	ca := newCA(t)
	cert, key, caFile := files(t, ca, "A")
	node, err := Load(cert, key, caFile)
	if err != nil {
		t.Fatal(err)
	}
	adminCert, adminKey := clientFiles(t, ca, "ops", true)
	admin, err := Client(caFile, adminCert, adminKey, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, serr := handshake(t, node.Peer(), admin); serr == nil || !strings.Contains(serr.Error(), "only node certificates") {
		t.Errorf("peer port, admin client certificate: %v; want refused as not a node's", serr)
	}
}

func TestRoles(t *testing.T) {
	ca := newCA(t)
	leaf := func(certPEM, keyPEM []byte, err error) *x509.Certificate {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return pair.Leaf
	}
	for _, tc := range []struct {
		name        string
		cert        *x509.Certificate
		admin, node bool
	}{
		{"node", leaf(ca.Issue("A", []string{"127.0.0.1"}, time.Hour)), false, true},
		{"client", leaf(ca.IssueClient("app", false, time.Hour)), false, false},
		{"admin client", leaf(ca.IssueClient("ops", true, time.Hour)), true, false},
		{"no usage given (any use)", &x509.Certificate{}, false, false},
		{"any usage, node mark", &x509.Certificate{Subject: pkix.Name{OrganizationalUnit: []string{NodeUnit}},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}, false, false},
		{"OU set by another tool", &x509.Certificate{Subject: pkix.Name{OrganizationalUnit: []string{"dev", AdminUnit}},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, true, false},
	} {
		if got := IsAdmin(tc.cert); got != tc.admin {
			t.Errorf("%s: IsAdmin = %v, want %v", tc.name, got, tc.admin)
		}
		if got := IsNode(tc.cert); got != tc.node {
			t.Errorf("%s: IsNode = %v, want %v", tc.name, got, tc.node)
		}
	}
}
