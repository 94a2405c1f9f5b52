package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/idnode/idnode/internal/backupstore"
	"github.com/idnode/idnode/node"
)

// Scheduled backups' defaults (docs/scheduled-backups.md).
const (
	defaultBackupInterval = time.Hour
	defaultBackupKeep     = 48
	// maxPassphraseFile bounds what is read of --backup-passphrase-file: a passphrase is a line.
	maxPassphraseFile = 4 << 10
)

// backupFlags are the --backup-* flags: where the cluster's scheduled backups go and how
// many it keeps.
type backupFlags struct {
	target, cluster      string
	s3Endpoint, s3Region string
	s3TLS                bool
	s3CA, s3Credentials  string
	interval, maxAge     time.Duration
	keep                 int
	passphraseFile       string
	where                backupstore.Target   // --backup-target, parsed
	s3                   backupstore.S3Config // the endpoint of an s3:// target
	passphrase           []byte
}

func (b *backupFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.target, "backup-target", "", "where the leader writes scheduled backups: dir:/path or s3://bucket/prefix (with --backup-s3-endpoint); empty: no scheduled backups (docs/scheduled-backups.md)")
	fs.StringVar(&b.cluster, "backup-cluster", "idnode", "the cluster's name in its backups' names (idnode-NAME-SLOT.idbk), the same on every node: letters, digits, '-' and '_'")
	fs.DurationVar(&b.interval, "backup-interval", defaultBackupInterval, fmt.Sprintf("one scheduled backup per interval, cluster-wide (at least %v)", node.MinBackupInterval))
	fs.IntVar(&b.keep, "backup-keep", defaultBackupKeep, "how many scheduled backups to keep (at least 1), the newest; 0 with --backup-max-age: keep by age only")
	fs.DurationVar(&b.maxAge, "backup-max-age", 0, "drop scheduled backups older than this (0: keep by count only); the newest is always kept")
	fs.StringVar(&b.passphraseFile, "backup-passphrase-file", "", "file whose first line is the passphrase scheduled backups are encrypted with (as idctl backup --passphrase-file); empty: not encrypted")
	fs.StringVar(&b.s3Endpoint, "backup-s3-endpoint", "", "host:port of the S3 service of an s3:// --backup-target")
	fs.StringVar(&b.s3Region, "backup-s3-region", "", "the bucket's region (default us-east-1)")
	fs.BoolVar(&b.s3TLS, "backup-s3-tls", true, "speak HTTPS to --backup-s3-endpoint")
	fs.StringVar(&b.s3CA, "backup-s3-ca", "", "PEM CA certificate of --backup-s3-endpoint (default: the system's CAs)")
	fs.StringVar(&b.s3Credentials, "backup-s3-credentials-file", "", "AWS shared credentials file ([default] aws_access_key_id, aws_secret_access_key); default: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
}

// finish checks the flags, naming the one at fault, and reads the passphrase file.
func (b *backupFlags) finish() error {
	if b.target == "" {
		return nil
	}
	var errs []error
	t, err := backupstore.ParseTarget(b.target)
	if err != nil {
		errs = append(errs, fmt.Errorf("--backup-target: %w", err))
	}
	b.where = t
	if t.IsS3() {
		if b.s3Endpoint == "" {
			errs = append(errs, errors.New("--backup-target s3:// needs --backup-s3-endpoint"))
		}
		b.s3 = backupstore.S3Config{Endpoint: b.s3Endpoint, TLS: b.s3TLS, CAFile: b.s3CA, Region: b.s3Region, CredentialsFile: b.s3Credentials}
	}
	if b.interval < node.MinBackupInterval {
		errs = append(errs, fmt.Errorf("--backup-interval %v is under %v: each backup copies the whole state", b.interval, node.MinBackupInterval))
	}
	if b.keep < 0 || (b.keep == 0 && b.maxAge <= 0) {
		errs = append(errs, fmt.Errorf("--backup-keep %d: keep at least 1 backup, or set --backup-max-age", b.keep))
	}
	if b.maxAge < 0 {
		errs = append(errs, fmt.Errorf("--backup-max-age %v may not be negative", b.maxAge))
	}
	if b.maxAge > 0 && b.maxAge < b.interval {
		errs = append(errs, fmt.Errorf("--backup-max-age %v is under --backup-interval %v: only the newest backup would ever be kept", b.maxAge, b.interval))
	}
	if err := (node.BackupSchedule{Cluster: b.cluster, Interval: time.Hour, Keep: 1}).Validate(); err != nil {
		errs = append(errs, fmt.Errorf("--backup-cluster: %w", err))
	}
	if b.passphraseFile != "" {
		pass, err := readPassphrase(b.passphraseFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("--backup-passphrase-file: %w", err))
		}
		b.passphrase = pass
	}
	return errors.Join(errs...)
}

// readPassphrase reads a passphrase file's first line.
func readPassphrase(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > maxPassphraseFile {
		return nil, fmt.Errorf("%s holds %d bytes; a passphrase is one line", path, len(data))
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimRight(line, "\r")
	if line == "" {
		return nil, fmt.Errorf("%s holds no passphrase on its first line", path)
	}
	return []byte(line), nil
}

// schedule opens the store (an S3 one checks its bucket and credentials now) and returns the
// node's schedule; no target: none.
func (b *backupFlags) schedule(ctx context.Context, observer node.BackupObserver) (node.BackupSchedule, error) {
	if b.target == "" {
		return node.BackupSchedule{}, nil
	}
	s := node.BackupSchedule{Cluster: b.cluster, Interval: b.interval, Keep: b.keep, MaxAge: b.maxAge, Passphrase: b.passphrase, Observer: observer}
	var err error
	if s.Store, err = b.where.Open(ctx, b.s3); err != nil {
		return s, fmt.Errorf("--backup-target %s: %w", b.target, err)
	}
	return s, nil
}

// backupObserver is the scheduled backups' metrics, when metrics and backups are on.
func (o *ops) backupObserver() node.BackupObserver {
	if o.metrics == nil || o.cfg.backups.target == "" {
		return nil
	}
	return o.metrics.Backups(o.cfg.backups.interval)
}
