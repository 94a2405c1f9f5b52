package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/backupcrypt"
	"github.com/idnode/idnode/internal/backupstore"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/s3server"
)

// testBackup is a backup of a state with one identity counter at 42, encrypted with pass
// when it is set.
func testBackup(t *testing.T, pass string) []byte {
	t.Helper()
	f := fsm.New()
	data, err := fsm.Encode(fsm.SeedIdentityCommand, &raftv1.SeedIdentity{Name: "orders", Value: 42})
	if err != nil {
		t.Fatal(err)
	}
	if err, ok := f.Apply(&raft.Log{Index: 7, Type: raft.LogCommand, Data: data}).(error); ok {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.WriteBackup(&buf, fsm.IssueRates{TakenAt: time.Date(2026, 11, 27, 21, 0, 5, 0, time.UTC), IdentitiesPerSecond: 3}); err != nil {
		t.Fatal(err)
	}
	if pass == "" {
		return buf.Bytes()
	}
	var enc bytes.Buffer
	w, err := backupcrypt.NewWriter(&enc, []byte(pass), cheapParams)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return enc.Bytes()
}

// putBackup stores data under name with its digest, as the node's scheduler does.
func putBackup(t *testing.T, store backupstore.Store, name string, data []byte) {
	t.Helper()
	ctx := context.Background()
	if _, err := store.Put(ctx, name, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, name+backupstore.DigestSuffix, strings.NewReader(backupstore.DigestLine(name, sha256.Sum256(data)))); err != nil {
		t.Fatal(err)
	}
}

const (
	plainName     = "idnode-prod-20261127T210000Z.idbk"
	encryptedName = "idnode-prod-20261127T220000Z.idbk"
	testPass      = "correct horse battery"
)

// testTarget fills store with a plain backup, an encrypted one, and the damaged cases, and
// runs the list and verify checks against it. args are the target flags, env the variables.
func testTarget(t *testing.T, store backupstore.Store, env map[string]string, args ...string) {
	putBackup(t, store, plainName, testBackup(t, ""))
	putBackup(t, store, encryptedName, testBackup(t, testPass))
	good := testBackup(t, "")
	// Cut short behind the digest's back.
	putBackup(t, store, "truncated.idbk", good)
	if _, err := store.Put(context.Background(), "truncated.idbk", bytes.NewReader(good[:len(good)/2])); err != nil {
		t.Fatal(err)
	}
	// One byte changed behind the digest's back, its length the same.
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x01
	putBackup(t, store, "flipped.idbk", good)
	if _, err := store.Put(context.Background(), "flipped.idbk", bytes.NewReader(flipped)); err != nil {
		t.Fatal(err)
	}
	// Cut short with a digest of its own: whole as stored, but no backup.
	putBackup(t, store, "cut.idbk", good[:len(good)-3])
	// One byte changed inside a record, with a digest of its own: the state digest it
	// carries no longer matches what it holds.
	corrupt := bytes.Clone(good)
	i := bytes.Index(corrupt, []byte("orders"))
	corrupt[i] = 'O'
	putBackup(t, store, "corrupt.idbk", corrupt)
	// A digest that is not the backup's.
	putBackup(t, store, "otherdigest.idbk", good)
	if _, err := store.Put(context.Background(), "otherdigest.idbk.sha256", strings.NewReader(backupstore.DigestLine("otherdigest.idbk", sha256.Sum256([]byte("x"))))); err != nil {
		t.Fatal(err)
	}
	// A backup whose digest never got stored.
	if _, err := store.Put(context.Background(), "nodigest.idbk", bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	passFile := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(passFile, []byte(testPass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wrongPass := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrongPass, []byte("wrong horse\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runIdctlEnv(t, env, append([]string{"backup", "list", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("backup list: exit %d: %s", code, errOut)
	}
	var rows []backupRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("backup list --json: %v\n%s", err, out)
	}
	if len(rows) != 8 {
		t.Fatalf("backup list: %d rows, want the 8 backups without their digests:\n%s", len(rows), out)
	}
	for i, r := range rows {
		if i > 0 && r.Stored.After(rows[i-1].Stored) {
			t.Errorf("backup list is not newest first: %s after %s", r.Name, rows[i-1].Name)
		}
		if r.Digest != (r.Name != "nodigest.idbk") || r.Bytes <= 0 {
			t.Errorf("backup list row %+v", r)
		}
	}
	code, out, errOut = runIdctlEnv(t, env, append([]string{"backup", "list"}, args...)...)
	if code != exitOK || !strings.Contains(out, "NAME") || !strings.Contains(out, plainName) || !strings.Contains(out, "MISSING") {
		t.Fatalf("backup list: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = runIdctlEnv(t, env, append([]string{"backup", "verify", plainName}, args...)...)
	if code != exitOK || !strings.Contains(out, "is whole and would restore") || !strings.Contains(out, "identities       1") ||
		!strings.Contains(out, "2026-11-27T21:00:05Z") || !strings.Contains(out, "raft index       7") {
		t.Fatalf("backup verify %s: exit %d\n%s%s", plainName, code, out, errOut)
	}
	code, out, errOut = runIdctlEnv(t, env, append([]string{"backup", "verify", encryptedName, "--json", "--passphrase-file", passFile}, args...)...)
	var v backupVerified
	if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || !v.Encrypted || v.Identities != 1 || v.Index != 7 || len(v.State) != 64 {
		t.Fatalf("backup verify %s --json: exit %d\n%s%s", encryptedName, code, out, errOut)
	}

	for _, c := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"absent.idbk", nil, "no such object: absent.idbk"},
		{"nodigest.idbk", nil, "without nodigest.idbk.sha256 the backup cannot be checked"},
		{"truncated.idbk", nil, fmt.Sprintf("digest mismatch: its %d bytes hash to %x, its digest says %x: the object is damaged or cut short", len(good)/2, sha256.Sum256(good[:len(good)/2]), sha256.Sum256(good))},
		{"flipped.idbk", nil, fmt.Sprintf("digest mismatch: its %d bytes hash to %x, its digest says %x", len(good), sha256.Sum256(flipped), sha256.Sum256(good))},
		{"otherdigest.idbk", nil, "digest mismatch"},
		{"cut.idbk", nil, "not a backup that would restore"},
		{"corrupt.idbk", nil, "not a backup that would restore"},
		{encryptedName, nil, "it is encrypted: give its passphrase"},
		{encryptedName, []string{"--passphrase-file", wrongPass}, "the passphrase is the wrong one"},
	} {
		code, out, errOut := runIdctlEnv(t, env, append(append([]string{"backup", "verify", c.name}, c.extra...), args...)...)
		if code != exitFail || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "refused") {
			t.Errorf("backup verify %s %q: exit %d, want %d and %q\n%s%s", c.name, c.extra, code, exitFail, c.want, out, errOut)
		}
	}
}

func TestBackupListAndVerifyInAFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "backups")
	store, err := backupstore.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	testTarget(t, store, nil, "--target", "dir:"+dir)
	// The node's variable names the target too.
	if code, out, errOut := runIdctlEnv(t, map[string]string{"IDNODE_BACKUP_TARGET": "dir:" + dir}, "backup", "list"); code != exitOK || !strings.Contains(out, plainName) {
		t.Fatalf("backup list with IDNODE_BACKUP_TARGET: exit %d\n%s%s", code, out, errOut)
	}

	missing := filepath.Join(t.TempDir(), "nothing-here")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"backup", "list", "--target", "dir:" + missing}, exitFail, "target dir:" + missing + ": backup folder " + missing + ": the folder does not exist"},
		{[]string{"backup", "list"}, exitUsage, "--target is needed"},
		{[]string{"backup", "list", "--target", "ftp://x"}, exitUsage, `--target "ftp://x": want dir:/path or s3://bucket/prefix`},
		{[]string{"backup", "list", "--target", "dir:" + dir, "--s3-endpoint", "s3.example.com"}, exitUsage, "--s3-endpoint is for an s3:// target"},
		{[]string{"backup", "verify", "../x", "--target", "dir:" + dir}, exitUsage, "object name"},
	} {
		code, _, errOut := runIdctlEnv(t, nil, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, want %d and %q: %s", c.args, code, c.code, c.want, errOut)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("backup list made the missing folder")
	}
}

// Against a real S3 server: the same checks, and the refusals of a bucket that is not there,
// wrong credentials and an endpoint that does not answer, each naming the target.
func TestBackupListAndVerifyInS3(t *testing.T) {
	srv := s3server.Shared(t)
	creds := map[string]string{"AWS_ACCESS_KEY_ID": s3server.AccessKey, "AWS_SECRET_ACCESS_KEY": s3server.SecretKey}
	for k, v := range creds {
		t.Setenv(k, v) // minio-go reads the environment itself
	}
	bucket := srv.NewBucket(t)
	store, err := backupstore.NewS3(context.Background(), backupstore.S3Config{Endpoint: srv.Endpoint, Bucket: bucket, Prefix: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	target := "s3://" + bucket + "/prod"
	testTarget(t, store, nil, "--target", target, "--s3-endpoint", srv.Endpoint, "--s3-tls=false")
	// The node's variables name the target and its endpoint too.
	env := map[string]string{"IDNODE_BACKUP_TARGET": target, "IDNODE_BACKUP_S3_ENDPOINT": srv.Endpoint, "IDNODE_BACKUP_S3_TLS": "false"}
	if code, out, errOut := runIdctlEnv(t, env, "backup", "list"); code != exitOK || !strings.Contains(out, plainName) {
		t.Fatalf("backup list with IDNODE_BACKUP_*: exit %d\n%s%s", code, out, errOut)
	}

	wrongCreds := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(wrongCreds, []byte("[default]\naws_access_key_id = "+s3server.AccessKey+"\naws_secret_access_key = not-the-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target string
		extra  []string
		want   string
	}{
		{"s3://no-such-bucket/prod", nil, "the bucket does not exist"},
		{target, []string{"--s3-credentials-file", wrongCreds}, "the endpoint refused the credentials"},
		{target, []string{"--s3-endpoint", loopback.FreeAddr(t)}, "the endpoint does not answer"},
	} {
		args := append([]string{"backup", "list", "--target", c.target, "--s3-endpoint", srv.Endpoint, "--s3-tls=false"}, c.extra...)
		code, _, errOut := runIdctlEnv(t, nil, args...)
		if code != exitFail || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "target "+c.target) {
			t.Errorf("%q: exit %d, want %d and %q naming the target: %s", args, code, exitFail, c.want, errOut)
		}
	}
}

// verify keeps its own words and its sentinel for a backup that differs from its digest,
// though the check is backupstore.Download's.
func TestVerifyBackupDigestMismatchIsErrBackupDigest(t *testing.T) {
	store, err := backupstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	good := testBackup(t, "")
	putBackup(t, store, plainName, good)
	damaged := bytes.Clone(good)
	damaged[0] ^= 0x01
	if _, err := store.Put(context.Background(), plainName, bytes.NewReader(damaged)); err != nil {
		t.Fatal(err)
	}
	e := &env{ctx: context.Background()}
	_, err = verifyBackup(e, store, plainName, passphrase{})
	if !errors.Is(err, errBackupDigest) || errors.Is(err, backupstore.ErrDamaged) || !strings.Contains(err.Error(), "the digest is not its own") {
		t.Fatalf("verify of a damaged backup: %v; want errBackupDigest in verify's words", err)
	}
}

// The buffer verify downloads into refuses a byte past its limit, io.Copy included (which
// would bypass Write through an embedded bytes.Buffer's ReadFrom).
func TestBoundedBufferStopsAtItsLimit(t *testing.T) {
	b := &boundedBuffer{limit: 10}
	if _, err := io.Copy(b, strings.NewReader("0123456789")); err != nil || b.over || b.buf.Len() != 10 {
		t.Fatalf("10 bytes into a 10-byte buffer: %v, over %v, %d held", err, b.over, b.buf.Len())
	}
	if _, err := io.Copy(b, strings.NewReader("x")); err == nil || !b.over || b.buf.Len() != 10 {
		t.Fatalf("an 11th byte: %v, over %v, %d held; want an error and over", err, b.over, b.buf.Len())
	}
}
