// Package opensslcert makes certificates with the openssl command, for tests: a node must judge
// certificates from any CA tool by what they carry, not only those `idctl certs` issues, and a
// plain `openssl x509 -req` certificate (no extensions at all) is what an operator's own PKI
// hands out most easily.
//
// Only tests import it, so it lives in test/helpers with the other test helpers, not in
// internal/, which holds the daemon's own parts.
package opensslcert

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CA is a certificate authority made by openssl in a test's temp dir.
type CA struct {
	t   testing.TB
	Dir string
	// Cert and Key are the CA's PEM files.
	Cert, Key string
}

// New makes a self-signed P-256 CA. Without the openssl command the test fails under CI
// (CI=true: the image must have it, Debian package openssl) and is skipped elsewhere.
func New(t testing.TB) *CA {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the openssl command is missing (Debian package openssl)")
		}
		t.Skip("the openssl command is missing")
	}
	ca := &CA{t: t, Dir: t.TempDir()}
	ca.Cert, ca.Key = filepath.Join(ca.Dir, "ca.crt"), filepath.Join(ca.Dir, "ca.key")
	ca.run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
		"-keyout", ca.Key, "-out", ca.Cert, "-subj", "/CN=openssl test CA", "-days", "2")
	return ca
}

// Issue signs a certificate named name (its files are Dir/name.crt and Dir/name.key) for subj
// (e.g. "/CN=alice/OU=idnode-admin"). ext lists the extension lines, each "key = value"
// (e.g. "extendedKeyUsage = clientAuth"); none gives a certificate with no extensions at all,
// as `openssl x509 -req` signs one by default. It returns the certificate and key files.
func (ca *CA) Issue(name, subj string, ext ...string) (cert, key string) {
	ca.t.Helper()
	cert, key = filepath.Join(ca.Dir, name+".crt"), filepath.Join(ca.Dir, name+".key")
	csr := filepath.Join(ca.Dir, name+".csr")
	ca.run("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
		"-keyout", key, "-out", csr, "-subj", subj)
	args := []string{"x509", "-req", "-in", csr, "-CA", ca.Cert, "-CAkey", ca.Key, "-CAcreateserial",
		"-out", cert, "-days", "2"}
	if len(ext) > 0 {
		extFile := filepath.Join(ca.Dir, name+".ext")
		if err := os.WriteFile(extFile, []byte(strings.Join(ext, "\n")+"\n"), 0o600); err != nil {
			ca.t.Fatal(err)
		}
		args = append(args, "-extfile", extFile)
	}
	ca.run(args...)
	return cert, key
}

func (ca *CA) run(args ...string) {
	ca.t.Helper()
	out, err := exec.Command("openssl", args...).CombinedOutput()
	if err != nil {
		ca.t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
