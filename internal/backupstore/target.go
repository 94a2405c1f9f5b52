package backupstore

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// Target is where a cluster's backups are, as the node's --backup-target and idctl's
// --target name it: "dir:/path" or "s3://bucket/prefix".
type Target struct {
	Dir            string // a dir: target's folder
	Bucket, Prefix string // an s3:// target's
}

// ParseTarget reads a target, naming what is wrong with it.
func ParseTarget(target string) (Target, error) {
	switch {
	case strings.HasPrefix(target, "dir:"):
		dir := strings.TrimPrefix(target, "dir:")
		if dir == "" {
			return Target{}, fmt.Errorf("%q: dir: needs a path (dir:/var/backups/idnode)", target)
		}
		return Target{Dir: dir}, nil
	case strings.HasPrefix(target, "s3://"):
		u, err := url.Parse(target)
		if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return Target{}, fmt.Errorf("%q: want s3://bucket/prefix", target)
		}
		return Target{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}, nil
	}
	return Target{}, fmt.Errorf("%q: want dir:/path or s3://bucket/prefix", target)
}

// IsS3 says whether t is a bucket's.
func (t Target) IsS3() bool { return t.Bucket != "" }

// Open opens t's store: its folder, or its bucket at the endpoint, with the credentials, that
// s3 gives (its Bucket and Prefix are t's). An S3 store checks the bucket now (NewS3).
func (t Target) Open(ctx context.Context, s3 S3Config) (Store, error) {
	if !t.IsS3() {
		return NewDir(t.Dir)
	}
	s3.Bucket, s3.Prefix = t.Bucket, t.Prefix
	return NewS3(ctx, s3)
}
