// Package tlsconfig is the one place idnode and idctl turn PEM files into TLS settings: what a
// node serves to clients, the mutual TLS nodes speak among themselves (Raft and forwarding),
// and what a client presents. It also issues the self-signed CA and node certificates that
// `idctl certs` writes and the tests use.
package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"
)

// Node is a node's TLS identity: its certificate and key, and the CA that signed every node's
// (and, optionally, clients') certificates.
type Node struct {
	cert tls.Certificate
	cas  *x509.CertPool
	// caCerts are the CA file's certificates, whose expiry Expiries reports.
	caCerts []*x509.Certificate
}

// Expiry is when a certificate of the node's stops being valid.
type Expiry struct {
	// Kind is "node" (the certificate the node presents) or "ca" (one it trusts).
	Kind     string
	Subject  string
	NotAfter time.Time
}

// Expiries lists the node's certificate and its CA certificates with their NotAfter, for the
// node's headroom (docs/metrics.md, "Headroom"): a certificate that lapses stops the cluster.
func (n *Node) Expiries() []Expiry {
	var out []Expiry
	if leaf := n.cert.Leaf; leaf != nil {
		out = append(out, Expiry{Kind: "node", Subject: leaf.Subject.String(), NotAfter: leaf.NotAfter})
	}
	for _, c := range n.caCerts {
		out = append(out, Expiry{Kind: "ca", Subject: c.Subject.String(), NotAfter: c.NotAfter})
	}
	return out
}

// Load reads a node's certificate, key and CA (PEM files). All three empty means TLS is off
// and Load returns nil; giving only some of them is an error.
func Load(certFile, keyFile, caFile string) (*Node, error) {
	if certFile == "" && keyFile == "" && caFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" || caFile == "" {
		return nil, errors.New("TLS needs all three of --tls-cert, --tls-key and --tls-ca (the CA verifies the other nodes)")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s / key %s: %w", certFile, keyFile, err)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	n, err := newNode(cert, pem)
	if err != nil {
		return nil, fmt.Errorf("TLS CA %s: %w", caFile, err)
	}
	return n, nil
}

// NewNode builds a node's TLS identity from PEM bytes (tests, and callers with no files).
func NewNode(certPEM, keyPEM, caPEM []byte) (*Node, error) {
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("TLS key pair: %w", err)
	}
	n, err := newNode(cert, caPEM)
	if err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	return n, nil
}

// newNode is a node's TLS identity from its key pair and the CA's PEM bytes.
func newNode(cert tls.Certificate, caPEM []byte) (*Node, error) {
	n := &Node{cert: cert, cas: x509.NewCertPool()}
	for rest := caPEM; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		n.cas.AddCert(c)
		n.caCerts = append(n.caCerts, c)
	}
	if len(n.caCerts) == 0 {
		return nil, errors.New("no PEM certificate found")
	}
	return n, nil
}

func loadPool(caFile string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	cas := x509.NewCertPool()
	if !cas.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("TLS CA %s: no PEM certificate found", caFile)
	}
	return cas, nil
}

// Server is what the node's client port speaks: clients authenticate the server (server-auth
// TLS, like HTTPS), and clientAuth (ParseClientAuth) says whether a client must present a
// certificate signed by the CA or may; one presented is verified either way, and may carry
// the admin role (IsAdmin).
func (n *Node) Server(clientAuth tls.ClientAuthType) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{n.cert},
		ClientAuth:   clientAuth,
		ClientCAs:    n.cas,
	}
}

// Peer is mutual TLS between nodes, for both ends of a connection: as a server it requires a
// client certificate signed by the CA, as a client it verifies the server against the CA
// (ServerName comes from the address dialled) and presents the node's own certificate. Either
// end must hold a node certificate (IsNode): a client certificate from the same CA is refused.
func (n *Node) Peer() *tls.Config {
	return &tls.Config{
		MinVersion:       tls.VersionTLS12,
		Certificates:     []tls.Certificate{n.cert},
		ClientAuth:       tls.RequireAndVerifyClientCert,
		ClientCAs:        n.cas,
		RootCAs:          n.cas,
		VerifyConnection: onlyNodes,
	}
}

// Client is what a client (idctl, `idnode health`) speaks: it verifies the server against
// caFile and, when certFile and keyFile are given, presents that certificate. serverName
// overrides the name checked in the server's certificate (default: the host dialled).
func Client(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if caFile != "" {
		cas, err := loadPool(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = cas
	}
	switch {
	case certFile != "" && keyFile != "":
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate %s / key %s: %w", certFile, keyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	case certFile != "" || keyFile != "":
		return nil, errors.New("a TLS client certificate needs both --tls-cert and --tls-key")
	}
	return cfg, nil
}
