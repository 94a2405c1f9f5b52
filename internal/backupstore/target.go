package backupstore

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"
)

// TargetFlags are the flags that say where backups are: a target (dir:/path or
// s3://bucket/prefix) and, for an s3:// one, how to reach the bucket. The node registers them
// as --backup-target and --backup-s3-* (where its scheduled backups go), idctl backup list and
// verify as --target and --s3-* (where to read them): one parser, so both read a target alike.
type TargetFlags struct {
	prefix                  string // "backup-" for the node, "" for idctl
	target                  string
	s3Endpoint, s3Region    string
	s3TLS                   bool
	s3CA, s3CredentialsFile string
}

// Register adds the flags to fs, each name after prefix; targetUse describes the target flag.
func (t *TargetFlags) Register(fs *flag.FlagSet, prefix, targetUse string) {
	t.prefix = prefix
	fs.StringVar(&t.target, prefix+"target", "", targetUse)
	fs.StringVar(&t.s3Endpoint, prefix+"s3-endpoint", "", "host:port of the S3 service of an s3:// --"+prefix+"target")
	fs.StringVar(&t.s3Region, prefix+"s3-region", "", "the bucket's region (default us-east-1)")
	fs.BoolVar(&t.s3TLS, prefix+"s3-tls", true, "speak HTTPS to --"+prefix+"s3-endpoint")
	fs.StringVar(&t.s3CA, prefix+"s3-ca", "", "PEM CA certificate of --"+prefix+"s3-endpoint (default: the system's CAs)")
	fs.StringVar(&t.s3CredentialsFile, prefix+"s3-credentials-file", "", "AWS shared credentials file ([default] aws_access_key_id, aws_secret_access_key); default: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
}

// s3FlagNames are the S3 flags' names after the prefix: a dir: target refuses them.
var s3FlagNames = []string{"s3-endpoint", "s3-region", "s3-tls", "s3-ca", "s3-credentials-file"}

// Target is a parsed target: Dir for a folder, else S3. Spec is the target as given, for
// messages.
type Target struct {
	Spec string
	Dir  string
	S3   S3Config
}

// IsSet reports whether a target was given.
func (t *TargetFlags) IsSet() bool { return t.target != "" }

// Spec is the target as given.
func (t *TargetFlags) Spec() string { return t.target }

// Parse reads the flags into a Target, naming the flag at fault. set reports whether a flag
// (by its full name) was given, on the command line or otherwise: an S3 flag given with a dir:
// target is refused, because it would be ignored without a word and the operator who gave it
// meant a bucket.
func (t *TargetFlags) Parse(set func(name string) bool) (Target, error) {
	flagName := "--" + t.prefix + "target"
	out := Target{Spec: t.target}
	switch {
	case t.target == "":
		return out, fmt.Errorf("%s is needed: dir:/path or s3://bucket/prefix", flagName)
	case strings.HasPrefix(t.target, "dir:"):
		var errs []error
		if out.Dir = strings.TrimPrefix(t.target, "dir:"); out.Dir == "" {
			errs = append(errs, fmt.Errorf("%s dir: needs a path (dir:/var/backups/idnode)", flagName))
		}
		for _, name := range s3FlagNames {
			if set(t.prefix + name) {
				errs = append(errs, fmt.Errorf("--%s%s is for an s3:// target, and %s %s is a folder: drop the flag, or give an s3:// target", t.prefix, name, flagName, t.target))
			}
		}
		return out, errors.Join(errs...)
	case strings.HasPrefix(t.target, "s3://"):
		u, err := url.Parse(t.target)
		if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return out, fmt.Errorf("%s %q: want s3://bucket/prefix", flagName, t.target)
		}
		if t.s3Endpoint == "" {
			return out, fmt.Errorf("%s s3:// needs --%ss3-endpoint", flagName, t.prefix)
		}
		out.S3 = S3Config{Endpoint: t.s3Endpoint, TLS: t.s3TLS, CAFile: t.s3CA, Bucket: u.Host,
			Prefix: strings.Trim(u.Path, "/"), Region: t.s3Region, CredentialsFile: t.s3CredentialsFile}
		return out, nil
	}
	return out, fmt.Errorf("%s %q: want dir:/path or s3://bucket/prefix", flagName, t.target)
}

// FolderMode says whether Open makes a dir: target's folder: the node does, where it is to
// write backups; a reader of backups wants to hear that the folder is missing.
type FolderMode bool

const (
	MakeFolder     FolderMode = true
	ExistingFolder FolderMode = false
)

// Open opens the target's store. An S3 one checks its endpoint, credentials and bucket now;
// each error names the target.
func (t Target) Open(ctx context.Context, mode FolderMode) (Store, error) {
	var s Store
	var err error
	switch {
	case t.Dir != "" && mode == MakeFolder:
		s, err = NewDir(t.Dir)
	case t.Dir != "":
		s, err = OpenDir(t.Dir)
	default:
		s, err = NewS3(ctx, t.S3)
	}
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Spec, err)
	}
	return s, nil
}
