package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/backupstore"
)

// putScheduled stores data as cluster's scheduled backup of slot in the folder dir, with its
// digest unless noDigest, and returns its name.
func putScheduled(t *testing.T, dir, cluster string, slot time.Time, data []byte, noDigest bool) string {
	t.Helper()
	s, err := backupstore.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	name := backupstore.ScheduledName(cluster, slot)
	sum, err := s.Put(context.Background(), name, strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if !noDigest {
		if _, err := s.Put(context.Background(), name+backupstore.DigestSuffix, strings.NewReader(backupstore.DigestLine(name, sum.SHA256))); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

// restore --target checks what it downloaded before it calls a node: a damaged backup, a
// missing digest or backup, a wrong passphrase, a bad target each fail naming the target and
// the object, with no call made; a sound one reaches the call. The temp file goes either way.
func TestRestoreFromATargetChecksBeforeItCalls(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := filepath.Join(t.TempDir(), "backups")
	target := "dir:" + dir
	t0 := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	right, wrong := writeFile(t, "right", []byte("right words\n")), writeFile(t, "wrong", []byte("wrong words\n"))
	good := putScheduled(t, dir, "prod", t0, encryptedBackup(t, "right words"), false)
	noDigest := putScheduled(t, dir, "prod", t0.Add(2*time.Hour), encryptedBackup(t, "right words"), true)
	damaged := putScheduled(t, dir, "prod", t0.Add(-time.Hour), encryptedBackup(t, "right words"), false)
	if err := os.WriteFile(filepath.Join(dir, damaged), []byte("not what was stored"), 0o600); err != nil {
		t.Fatal(err)
	}
	noNode := []string{"--addr", "127.0.0.1:1", "--timeout", "1s"}
	for _, c := range []struct {
		args  []string
		msg   []string
		usage bool // a target idctl cannot use: refused as bad usage
	}{
		{[]string{"--target", target, "--passphrase-file", right, damaged}, []string{"backup " + damaged + " in " + target, "differs from its recorded sum"}, false},
		{[]string{"--target", target, "--passphrase-file", right, noDigest}, []string{"backup " + noDigest + " in " + target, "no such object", noDigest + ".sha256"}, false},
		{[]string{"--target", target, "--passphrase-file", right, "idnode-prod-20200101T000000Z.idbk"}, []string{"in " + target, "no such object"}, false},
		{[]string{"--target", target, "--passphrase-file", wrong, "latest"}, []string{"backup " + good + " in " + target, "wrong passphrase"}, false},
		{[]string{"--target", target, "--passphrase-file", right, "../escape"}, []string{"in " + target, "object name"}, false},
		{[]string{"--target", "dir:" + filepath.Join(dir, "missing"), "latest"}, []string{"target dir:" + filepath.Join(dir, "missing"), "the folder does not exist"}, false},
		{[]string{"--target", "s3://bucket/prod", "latest"}, []string{"--s3-endpoint"}, true},
		{[]string{"--target", "ftp://x", "latest"}, []string{"--target", "dir:/path or s3://bucket/prefix"}, true},
		{[]string{"--target", target, "--s3-endpoint", "s3.example.com:443", "latest"}, []string{"--s3-endpoint is for an s3:// target"}, true},
	} {
		code, _, errOut := runIdctlEnv(t, nil, append(append([]string{"restore"}, c.args...), noNode...)...)
		want := exitFail
		if c.usage {
			want = exitUsage
		}
		ok := code == want && !strings.Contains(errOut, "via 127.0.0.1:1")
		for _, m := range c.msg {
			ok = ok && strings.Contains(errOut, m)
		}
		if !ok {
			t.Errorf("idctl restore %q: exit %d, stderr %q; want exit %d naming %q before any call", c.args, code, errOut, want, c.msg)
		}
	}
	// latest is the newest backup with its digest: good, not noDigest; it reaches the call.
	code, _, errOut := runIdctlEnv(t, nil, append([]string{"restore", "--target", target, "--passphrase-file", right, "latest"}, noNode...)...)
	if code != exitFail || !strings.Contains(errOut, "via 127.0.0.1:1") {
		t.Errorf("idctl restore --target %s latest: exit %d, stderr %q; want the call to the absent node to fail", target, code, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "idctl-restore-*")); len(left) > 0 {
		t.Errorf("restore left its temp files: %v", left)
	}
}
