package backupstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
)

// partSize is the size of each part of an upload. A backup's length is not known when it
// starts (it is streamed, maybe encrypted on the way), so it goes up in parts, each held in
// memory once: 16 MiB parts bound memory and allow objects of up to 160 GiB (10,000 parts).
const partSize = 16 << 20

// S3 is a Store in a bucket of an S3-compatible service, each object under the bucket's
// prefix. An S3 PUT is atomic and durable once answered: the object is whole or absent.
type S3 struct {
	client *minio.Client
	cfg    S3Config
	prefix string
}

// NewS3 connects to the bucket cfg names and checks, within cfg's timeout, that the endpoint
// answers, takes the credentials and holds the bucket, so a mistake in any of them is named
// when the store is set up, not at the first backup.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	client, err := cfg.client()
	if err != nil {
		return nil, err
	}
	s := &S3{client: client, cfg: cfg, prefix: cfg.prefix()}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	// A listing, not a HEAD of the bucket: an answer to HEAD has no body, so a refusal would
	// come without the service's reason (SignatureDoesNotMatch, InvalidAccessKeyId).
	// The first answer is enough; cancel ends the listing's goroutine.
	first, ok := <-client.ListObjects(ctx, cfg.Bucket, minio.ListObjectsOptions{Prefix: s.prefix, MaxKeys: 1})
	if ok && first.Err != nil {
		return nil, s.describe("check the bucket", first.Err)
	}
	return s, nil
}

func (s *S3) String() string {
	return fmt.Sprintf("bucket %q (prefix %q) at %s", s.cfg.Bucket, s.prefix, s.cfg.url())
}

// Put uploads r in parts; the service makes the object visible only when the last part is in.
func (s *S3) Put(ctx context.Context, name string, r io.Reader) (Sum, error) {
	if err := ValidateName(name); err != nil {
		return Sum{}, err
	}
	sum := newSummer(r)
	_, err := s.client.PutObject(ctx, s.cfg.Bucket, s.prefix+name, sum, -1, minio.PutObjectOptions{
		PartSize:    partSize,
		ContentType: "application/octet-stream",
	})
	if err != nil {
		return Sum{}, s.describe("put "+name, err)
	}
	return sum.sum(), nil
}

// List returns the objects directly under the prefix whose names are valid.
func (s *S3) List(ctx context.Context) ([]Object, error) {
	var out []Object
	for info := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: s.prefix}) {
		if info.Err != nil {
			return nil, s.describe("list", info.Err)
		}
		name := strings.TrimPrefix(info.Key, s.prefix)
		if ValidateName(name) != nil {
			continue
		}
		out = append(out, Object{Name: name, Size: info.Size, Modified: info.LastModified})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Open asks for the object's head first, so a missing object or a refusal is Open's error,
// not the first Read's.
func (s *S3) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, s.prefix+name, minio.GetObjectOptions{})
	if err == nil {
		_, err = obj.Stat()
	}
	if err != nil {
		if obj != nil {
			_ = obj.Close()
		}
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return nil, fmt.Errorf("%s: %w: %s", s, ErrNotFound, name)
		}
		return nil, s.describe("open "+name, err)
	}
	return obj, nil
}

// Delete removes the object; S3 answers a delete of a missing key as done.
func (s *S3) Delete(ctx context.Context, name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.cfg.Bucket, s.prefix+name, minio.RemoveObjectOptions{}); err != nil {
		return s.describe("delete "+name, err)
	}
	return nil
}

// ErrCredentials matches an error of an S3 store whose endpoint refused its credentials.
var ErrCredentials = errors.New("the endpoint refused the credentials")

// ErrUnreachable matches an error of an S3 store whose endpoint did not answer.
var ErrUnreachable = errors.New("the endpoint does not answer")

// describe names the store and what an operator can do about err: the service's refusals by
// their S3 code, anything without an S3 answer as an endpoint that does not answer.
func (s *S3) describe(op string, err error) error {
	resp := minio.ToErrorResponse(err)
	switch resp.Code {
	case "":
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("%s: %s: %w", s, op, err)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s: %s: %w: no answer within %v (check the address and the port): %w", s, op, ErrUnreachable, s.cfg.timeout(), err)
		}
		return fmt.Errorf("%s: %s: %w (check the address, the port and whether it speaks TLS): %w", s, op, ErrUnreachable, err)
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken", "ExpiredToken":
		return fmt.Errorf("%s: %s: %w: %s: %s", s, op, ErrCredentials, resp.Code, resp.Message)
	case minio.NoSuchBucket:
		return fmt.Errorf("%s: %s: the bucket does not exist (create it first): %w", s, op, err)
	}
	return fmt.Errorf("%s: %s: %s: %w", s, op, resp.Code, err)
}
