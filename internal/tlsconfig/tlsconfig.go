// Package tlsconfig is the one place idnode and idctl turn PEM files into TLS settings: what a
// node serves to clients, the mutual TLS nodes speak among themselves (Raft and forwarding),
// and what a client presents. It also issues the self-signed CA and node certificates that
// `idctl certs` writes and the tests use.
package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// Node is a node's TLS identity: its certificate and key, and the CA that signed every node's
// (and, optionally, clients') certificates.
type Node struct {
	cert tls.Certificate
	cas  *x509.CertPool
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
	cas, err := loadPool(caFile)
	if err != nil {
		return nil, err
	}
	return &Node{cert: cert, cas: cas}, nil
}

// NewNode builds a node's TLS identity from PEM bytes (tests, and callers with no files).
func NewNode(certPEM, keyPEM, caPEM []byte) (*Node, error) {
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("TLS key pair: %w", err)
	}
	cas := x509.NewCertPool()
	if !cas.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("TLS CA: no PEM certificate found")
	}
	return &Node{cert: cert, cas: cas}, nil
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
