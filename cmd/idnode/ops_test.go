package main

import (
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/tlsconfig"
	"github.com/idnode/idnode/server"
)

func TestOperatorFlags(t *testing.T) {
	c := mustParse(t, []string{"--metrics-addr", "127.0.0.1:9100"}, map[string]string{
		"IDNODE_ADMIN_TOKEN": "s3cret", "IDNODE_TLS_CERT": "a.crt", "IDNODE_TLS_KEY": "a.key", "IDNODE_TLS_CA": "ca.crt",
	})
	if c.metricsAddr != "127.0.0.1:9100" || c.adminToken != "s3cret" || c.tlsCert != "a.crt" || c.tlsKey != "a.key" || c.tlsCA != "ca.crt" {
		t.Fatalf("operator flags: %+v", c)
	}
	if c.tlsClientAuth != tls.VerifyClientCertIfGiven {
		t.Errorf("--tls-client-auth default = %v, want request (verify a certificate when given)", c.tlsClientAuth)
	}
	if c := mustParse(t, []string{"--tls-client-auth", "require"}, map[string]string{"IDNODE_TLS_CERT": "a.crt", "IDNODE_TLS_KEY": "a.key", "IDNODE_TLS_CA": "ca.crt"}); c.tlsClientAuth != tls.RequireAndVerifyClientCert {
		t.Errorf("--tls-client-auth require = %v", c.tlsClientAuth)
	}
	if c := mustParse(t, nil, nil); c.metricsAddr != "" || c.adminToken != "" || c.tlsCert != "" {
		t.Fatalf("metrics, token and TLS must be off by default: %+v", c)
	}
	for _, args := range [][]string{{"--tls-cert", "a.crt"}, {"--tls-cert", "a.crt", "--tls-key", "a.key"}, {"--tls-ca", "ca.crt"}} {
		if _, err := parseConfig(args, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "go together") {
			t.Errorf("parseConfig(%q) = %v, want the three TLS flags required together", args, err)
		}
	}
}

func TestLoadOps(t *testing.T) {
	o, err := loadOps(mustParse(t, nil, nil))
	if err != nil || o.metrics != nil || o.cfg.tls != nil || len(o.grpcOptions()) != 0 {
		t.Fatalf("no flags: %+v, %v; want nothing on", o, err)
	}
	if n := len(o.cfg.joinDialOptions()); n != 1 {
		t.Errorf("no flags: --join dials with %d options, want plaintext alone", n)
	}
	ca, err := tlsconfig.NewAuthority("test CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue("A", []string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{"a.crt": certPEM, "a.key": keyPEM, "ca.crt": ca.CertPEM}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := mustParse(t, []string{"--metrics-addr", "127.0.0.1:0", "--admin-token", "x",
		"--tls-cert", filepath.Join(dir, "a.crt"), "--tls-key", filepath.Join(dir, "a.key"), "--tls-ca", filepath.Join(dir, "ca.crt")}, nil)
	o, err = loadOps(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if o.metrics == nil || cfg.tls == nil || len(o.grpcOptions()) != 3 {
		t.Fatalf("with every flag: metrics %v, tls %v, %d gRPC options", o.metrics != nil, cfg.tls != nil, len(o.grpcOptions()))
	}
	if n := len(cfg.joinDialOptions()); n != 2 {
		t.Errorf("--join dials with %d options, want TLS and the admin token", n)
	}
	if sc := o.serverConfig(server.Config{}); sc.AdminToken != "x" || sc.PeerTLS == nil || sc.Observer == nil || sc.Identity.OnBatch == nil {
		t.Errorf("server config: %+v", sc)
	}
	cfg.tlsCA = filepath.Join(dir, "a.key")
	if _, err := loadOps(cfg); err == nil {
		t.Error("a key file as CA was accepted")
	}
}
