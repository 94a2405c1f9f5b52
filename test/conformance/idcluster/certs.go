package main

import (
	"os"
	"path/filepath"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/idnode/idnode/internal/tlsconfig"
)

// certLife: a run lasts minutes.
const certLife = 24 * time.Hour

// clientFiles are the PEM files a runner's clients use on a TLS cluster.
type clientFiles struct {
	CA         string `json:"ca"`
	ClientCert string `json:"clientCert"`
	ClientKey  string `json:"clientKey"`
}

// makeCertificates makes a CA for the run, one certificate every node serves and presents to
// the others (nodes are told apart by their tags, not their certificates), a client
// certificate for the runner, and an admin one for idcluster itself. It returns the runner's
// files, the nodes' TLS flags and idcluster's credentials.
func makeCertificates(dir string, mutual bool) (*clientFiles, []string, credentials.TransportCredentials, error) {
	ca, err := tlsconfig.NewAuthority("idcluster CA", certLife)
	if err != nil {
		return nil, nil, nil, err
	}
	nodeCert, nodeKey, err := ca.Issue("idcluster node", []string{"127.0.0.1", "localhost"}, certLife)
	if err != nil {
		return nil, nil, nil, err
	}
	clientCert, clientKey, err := ca.IssueClient("conformance client", false, certLife)
	if err != nil {
		return nil, nil, nil, err
	}
	adminCert, adminKey, err := ca.IssueClient("idcluster", true, certLife)
	if err != nil {
		return nil, nil, nil, err
	}
	tlsDir := filepath.Join(dir, "tls")
	if err := os.MkdirAll(tlsDir, 0o700); err != nil {
		return nil, nil, nil, err
	}
	files := map[string][]byte{"ca.pem": ca.CertPEM, "node.pem": nodeCert, "node-key.pem": nodeKey,
		"client.pem": clientCert, "client-key.pem": clientKey}
	for name, pem := range files {
		if err := os.WriteFile(filepath.Join(tlsDir, name), pem, 0o600); err != nil {
			return nil, nil, nil, err
		}
	}
	at := func(name string) string { return filepath.Join(tlsDir, name) }
	args := []string{"--tls-ca", at("ca.pem"), "--tls-cert", at("node.pem"), "--tls-key", at("node-key.pem")}
	if mutual {
		args = append(args, "--tls-client-auth", "require")
	}
	creds, err := tlsCreds(ca.CertPEM, adminCert, adminKey)
	if err != nil {
		return nil, nil, nil, err
	}
	return &clientFiles{CA: at("ca.pem"), ClientCert: at("client.pem"), ClientKey: at("client-key.pem")}, args, creds, nil
}
