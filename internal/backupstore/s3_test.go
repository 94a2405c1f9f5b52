package backupstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/s3server"
)

// newTestS3 is a store in a bucket of its own on the shared S3 server, under a prefix,
// with its credentials from the environment.
func newTestS3(t *testing.T) testStore {
	srv := s3server.Shared(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3server.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3server.SecretKey)
	s, err := NewS3(context.Background(), S3Config{Endpoint: srv.Endpoint, Bucket: srv.NewBucket(t), Prefix: "/cluster-a/daily/"})
	if err != nil {
		t.Fatal(err)
	}
	// An object cut short behind the store's back: its first size bytes put again in its place.
	truncate := func(t *testing.T, name string, size int64) {
		ctx := context.Background()
		key := s.prefix + name
		obj, err := s.client.GetObject(ctx, s.cfg.Bucket, key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Close()
		head := make([]byte, size)
		if _, err := io.ReadFull(obj, head); err != nil {
			t.Fatal(err)
		}
		if _, err := s.client.PutObject(ctx, s.cfg.Bucket, key, bytes.NewReader(head), size, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return testStore{Store: s, truncate: truncate}
}

func TestS3(t *testing.T) { testContract(t, newTestS3) }

// Objects outside the prefix are not the store's: another cluster's backups in the same bucket.
func TestS3KeepsToItsPrefix(t *testing.T) {
	s := newTestS3(t).Store.(*S3)
	ctx := context.Background()
	if _, err := s.client.PutObject(ctx, s.cfg.Bucket, "cluster-b/other.backup", strings.NewReader("b"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "mine.backup", strings.NewReader("a")); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "mine.backup" {
		t.Fatalf("List: %v; want mine.backup alone", list)
	}
}

// Credentials the service refuses are named as such when the store is set up, with the
// service's reason, the bucket and the endpoint.
func TestS3WrongCredentials(t *testing.T) {
	srv := s3server.Shared(t)
	path := filepath.Join(t.TempDir(), "credentials")
	creds := "[default]\naws_access_key_id = " + s3server.AccessKey + "\naws_secret_access_key = not-the-secret\n"
	if err := os.WriteFile(path, []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	bucket := srv.NewBucket(t)
	_, err := NewS3(context.Background(), S3Config{Endpoint: srv.Endpoint, Bucket: bucket, CredentialsFile: path})
	if !errors.Is(err, ErrCredentials) {
		t.Fatalf("NewS3 with a wrong secret: %v; want ErrCredentials", err)
	}
	for _, want := range []string{bucket, srv.Endpoint, "SignatureDoesNotMatch"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("NewS3 with a wrong secret: %v; want it to name %s", err, want)
		}
	}
}

func TestS3MissingBucket(t *testing.T) {
	srv := s3server.Shared(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3server.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3server.SecretKey)
	_, err := NewS3(context.Background(), S3Config{Endpoint: srv.Endpoint, Bucket: "no-such-bucket"})
	if err == nil || !strings.Contains(err.Error(), `bucket "no-such-bucket"`) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("NewS3 of a missing bucket: %v; want it named as missing", err)
	}
}

// Without credentials nothing is sent: the store says where it looked.
func TestS3NoCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_ACCESS_KEY", "")
	t.Setenv("AWS_SECRET_KEY", "")
	_, err := NewS3(context.Background(), S3Config{Endpoint: "127.0.0.1:1", Bucket: "b"})
	if err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Fatalf("NewS3 without credentials: %v; want the variables named", err)
	}
	_, err = NewS3(context.Background(), S3Config{Endpoint: "127.0.0.1:1", Bucket: "b", CredentialsFile: filepath.Join(t.TempDir(), "none")})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("NewS3 with a missing credentials file: %v; want ErrNotExist", err)
	}
}

// An endpoint that does not answer is reported within a bound, named, whether nothing listens
// on its port or something listens and never answers.
func TestS3UnreachableEndpoint(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", s3server.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3server.SecretKey)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn // accepted, never answered, closed with the listener's test
		for {
			c, err := silent.Accept()
			if err != nil {
				for _, c := range held {
					_ = c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	const timeout = time.Second
	// NewS3 bounds its whole check by the timeout; the rest is a loaded machine's slack.
	const bound = timeout + 3*time.Second
	for what, endpoint := range map[string]string{
		"nothing listens": loopback.FreeAddr(t),
		"never answers":   silent.Addr().String(),
	} {
		start := time.Now()
		_, err := NewS3(context.Background(), S3Config{Endpoint: endpoint, Bucket: "backups", Timeout: timeout})
		took := time.Since(start)
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), endpoint) {
			t.Errorf("%s: NewS3: %v; want ErrUnreachable naming %s", what, err, endpoint)
		}
		if took > bound {
			t.Errorf("%s: NewS3 took %v; want at most %v", what, took, bound)
		}
		t.Logf("%s: refused in %v: %v", what, took.Round(time.Millisecond), err)
	}
}

// A Put whose stream breaks after its first part leaves no upload behind, whose parts the
// bucket would keep (and bill) until a lifecycle rule removed them.
func TestS3FailedPutAbortsItsUpload(t *testing.T) {
	s := newTestS3(t).Store.(*S3)
	ctx := context.Background()
	broken := errors.New("the backup stream broke")
	if _, err := s.Put(ctx, "x.backup", &failingReader{data: make([]byte, partSize+1), err: broken}); !errors.Is(err, broken) {
		t.Fatalf("Put: %v; want the reader's error", err)
	}
	for u := range s.client.ListIncompleteUploads(ctx, s.cfg.Bucket, s.prefix, true) {
		if u.Err != nil {
			t.Fatal(u.Err)
		}
		t.Errorf("an upload is left: %s (%s)", u.Key, u.UploadID)
	}
}
