package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/node"
)

func TestBackupFlags(t *testing.T) {
	c := mustParse(t, nil, nil)
	if c.backups.on() {
		t.Fatalf("scheduled backups are on by default: %+v", c.backups.target)
	}
	pass := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(pass, []byte("correct horse\nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = mustParse(t, []string{"--backup-target", "s3://bucket/idnode/prod/", "--backup-s3-endpoint", "s3.example.com:443",
		"--backup-interval", "15m", "--backup-keep", "10", "--backup-max-age", "24h", "--backup-passphrase-file", pass}, nil)
	b := c.backups
	if s3 := b.target.S3; s3.Bucket != "bucket" || s3.Prefix != "idnode/prod" || s3.Endpoint != "s3.example.com:443" || !s3.TLS ||
		b.interval != 15*time.Minute || b.keep != 10 || b.maxAge != 24*time.Hour || string(b.passphrase) != "correct horse" {
		t.Fatalf("backup flags: %+v", b)
	}
	c = mustParse(t, nil, map[string]string{"IDNODE_BACKUP_TARGET": "dir:/var/backups/idnode"})
	if c.backups.target.Dir != "/var/backups/idnode" {
		t.Fatalf("dir target: %+v", c.backups)
	}
}

func TestBadBackupFlagsAreRefusedNamingTheFlag(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := []string{"--backup-target", "dir:/tmp/b"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--backup-target", "ftp://x"}, "--backup-target"},
		{[]string{"--backup-target", "dir:"}, "dir: needs a path"},
		{[]string{"--backup-target", "s3://bucket"}, "--backup-s3-endpoint"},
		{append(dir, "--backup-interval", (node.MinBackupInterval / 2).String()), "--backup-interval " + (node.MinBackupInterval / 2).String() + " is under " + node.MinBackupInterval.String()},
		{append(dir, "--backup-keep", "0"), "--backup-keep 0"},
		{append(dir, "--backup-keep", "-1"), "--backup-keep -1"},
		{append(dir, "--backup-max-age", "30m"), "--backup-max-age 30m0s is under --backup-interval"},
		{append(dir, "--backup-cluster", "a.b"), "--backup-cluster"},
		{append(dir, "--backup-passphrase-file", empty), "--backup-passphrase-file"},
		{append(dir, "--backup-passphrase-file", empty+"-missing"), "--backup-passphrase-file"},
		// S3 settings with a folder would be ignored: the operator meant a bucket.
		{append(dir, "--backup-s3-endpoint", "s3.example.com"), "--backup-s3-endpoint is for an s3:// target"},
		{append(dir, "--backup-s3-tls=false"), "--backup-s3-tls is for an s3:// target"},
		{append(dir, "--backup-s3-credentials-file", empty), "--backup-s3-credentials-file is for an s3:// target"},
	} {
		_, err := parseConfig(c.args, environ{}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.args, err, c.want)
		}
	}
	// From the environment too: the node's variables are often exported for every node alike.
	_, err := parseConfig(dir, environ{"IDNODE_BACKUP_S3_ENDPOINT": "s3.example.com"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--backup-s3-endpoint is for an s3:// target") {
		t.Errorf("IDNODE_BACKUP_S3_ENDPOINT with a dir: target: %v", err)
	}
	// Keeping by age alone is fine.
	mustParse(t, append(dir, "--backup-keep", "0", "--backup-max-age", "168h"), nil)
}
