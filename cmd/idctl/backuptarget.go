package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/idnode/idnode/internal/backupstore"
)

// latestBackup is the name that asks restore --target for the target's newest scheduled
// backup (backupstore.Newest).
const latestBackup = "latest"

// targetFlags are --target, where the cluster's scheduled backups are (as the node's
// --backup-target names it), and the node's own --backup-s3-* flags for an s3:// one. A flag
// not given is read from the node's variable (IDNODE_BACKUP_S3_ENDPOINT, …), so a shell set
// up as the node's environment needs none; the credentials are the node's too: a credentials
// file, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
type targetFlags struct {
	fs                                   *flag.FlagSet
	target                               string
	endpoint, region, ca, credentialFile string
	tls                                  bool
}

func (f *targetFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.target, "target", "", "restore from this `target` of scheduled backups, dir:/path or s3://bucket/prefix, the argument naming a backup in it or "+latestBackup)
	fs.StringVar(&f.endpoint, "backup-s3-endpoint", "", "host:port of an s3:// --target's service (IDNODE_BACKUP_S3_ENDPOINT)")
	fs.StringVar(&f.region, "backup-s3-region", "", "the bucket's region, default us-east-1 (IDNODE_BACKUP_S3_REGION)")
	fs.BoolVar(&f.tls, "backup-s3-tls", true, "speak HTTPS to the S3 service (IDNODE_BACKUP_S3_TLS)")
	fs.StringVar(&f.ca, "backup-s3-ca", "", "PEM CA certificate of the S3 service (IDNODE_BACKUP_S3_CA)")
	fs.StringVar(&f.credentialFile, "backup-s3-credentials-file", "", "AWS shared credentials file; default AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (IDNODE_BACKUP_S3_CREDENTIALS_FILE)")
}

// s3Timeout bounds the connection and each answer of the S3 service.
const s3Timeout = 30 * time.Second

// open opens the target's store, the S3 flags filled in from the node's variables.
func (f *targetFlags) open(ctx context.Context, e *env) (backupstore.Store, error) {
	t, err := backupstore.ParseTarget(f.target)
	if err != nil {
		return nil, fmt.Errorf("--target %w", err)
	}
	if !t.IsS3() {
		// The node's Dir makes a missing folder; a restore reads one that is there.
		if st, err := os.Stat(t.Dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--target %s: no such folder of backups", f.target)
		}
		return t.Open(ctx, backupstore.S3Config{})
	}
	given := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for name, v := range map[string]*string{"backup-s3-endpoint": &f.endpoint, "backup-s3-region": &f.region,
		"backup-s3-ca": &f.ca, "backup-s3-credentials-file": &f.credentialFile} {
		if !given[name] {
			*v = e.getenv(envOfFlag(name))
		}
	}
	if v := e.getenv(envOfFlag("backup-s3-tls")); v != "" && !given["backup-s3-tls"] {
		if f.tls, err = strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("%s=%q: want true or false", envOfFlag("backup-s3-tls"), v)
		}
	}
	if f.endpoint == "" {
		return nil, errors.New("--target " + f.target + " needs --backup-s3-endpoint (or IDNODE_BACKUP_S3_ENDPOINT): the S3 service's host:port")
	}
	s, err := t.Open(ctx, backupstore.S3Config{Endpoint: f.endpoint, TLS: f.tls, CAFile: f.ca, Region: f.region,
		CredentialsFile: f.credentialFile, Timeout: s3Timeout})
	if err != nil {
		return nil, fmt.Errorf("--target %s: %w", f.target, err)
	}
	return s, nil
}

// envOfFlag is the node's variable of one of its flags: IDNODE_BACKUP_S3_ENDPOINT for
// backup-s3-endpoint.
func envOfFlag(name string) string {
	return "IDNODE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// fetchedBackup is a backup downloaded from a target and checked against its digest, in a
// temp file (mode 0600: a backup may hold keys) that close removes.
type fetchedBackup struct {
	what string // the target and the object, for messages
	file *os.File
}

// fetch downloads the backup name ("latest": the newest) from the target into a temp file
// and checks it against the digest beside it, before anything is sent to the cluster: a
// backup that is damaged, cut short or missing its digest restores nothing. Every error
// names the target and the object.
func (f *targetFlags) fetch(e *env, name string) (*fetchedBackup, error) {
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	store, err := f.open(ctx, e)
	if err != nil {
		return nil, err
	}
	if name == latestBackup {
		objects, err := store.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("--target %s: %w", f.target, err)
		}
		if name, err = backupstore.Newest(objects); err != nil {
			return nil, fmt.Errorf("--target %s: %w", f.target, err)
		}
	}
	what := "backup " + name + " in " + f.target
	if err := backupstore.ValidateName(name); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	tmp, err := os.CreateTemp("", "idctl-restore-*")
	if err != nil {
		return nil, fmt.Errorf("%s: a temp file to download it into: %w", what, err)
	}
	b := &fetchedBackup{what: what, file: tmp}
	if _, err := backupstore.Download(ctx, store, name, tmp); err != nil {
		b.close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		b.close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}

// close removes the temp file.
func (b *fetchedBackup) close() error {
	err := b.file.Close()
	if rerr := os.Remove(b.file.Name()); err == nil {
		err = rerr
	}
	return err
}

// openRestoreSource opens what restore reads: the backup file arg, or with --target the
// backup arg names in it ("latest": the newest), downloaded and checked first.
func openRestoreSource(e *env, t *targetFlags, arg string, pass passphrase) (*backupIn, error) {
	if t.target == "" {
		return openBackup(e, arg, pass)
	}
	b, err := t.fetch(e, arg)
	if err != nil {
		return nil, err
	}
	return readBackup(e, b.what, b.file, b.close, pass)
}
