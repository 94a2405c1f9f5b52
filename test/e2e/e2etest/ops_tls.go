package e2etest

import (
	"path/filepath"
	"testing"
)

// TLSCerts makes a CA and one certificate per tag with `idctl certs`, as docs/tls.md says, and
// returns the directory holding them.
func TLSCerts(t *testing.T, tags ...string) string {
	t.Helper()
	dir := t.TempDir()
	MustIdctl(t, nil, "certs", "ca", "--dir", dir)
	for _, tag := range tags {
		MustIdctl(t, nil, "certs", "node", tag, "--dir", dir)
	}
	return dir
}

func TLSFlags(dir string) func(tag string) []string {
	return func(tag string) []string {
		return []string{"--tls-cert", filepath.Join(dir, tag+".crt"), "--tls-key", filepath.Join(dir, tag+".key"), "--tls-ca", filepath.Join(dir, "ca.crt")}
	}
}
