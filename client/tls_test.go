package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// selfSigned returns a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "idnode test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// WithTransportCredentials: a TLS node is reached with the right CA, and not in plaintext.
func TestClientTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &fakeNode{tag: "A", state: newFakeState(), addr: l.Addr().String(),
		srv: grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})))}
	idnodev1.RegisterIdServiceServer(n.srv, n)
	go func() { _ = n.srv.Serve(l) }()
	t.Cleanup(n.srv.Stop)

	c := dialTest(t, []string{n.addr}, WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13})))
	if b, err := c.NextIdentity(testCtx(t), "orders", 1); err != nil || b.First != 1 {
		t.Fatalf("NextIdentity over TLS = %+v, %v", b, err)
	}

	plain := dialTest(t, []string{n.addr}, WithBackoff(Backoff{MaxAttempts: 2, Initial: time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := plain.NextIdentity(ctx, "orders", 1); status.Code(err) != codes.Unavailable {
		t.Fatalf("NextIdentity in plaintext to a TLS node = %v, want UNAVAILABLE", err)
	}
	if dialErr := WithTransportCredentials(nil)(&options{}); dialErr == nil {
		t.Error("WithTransportCredentials(nil) accepted")
	}
}
