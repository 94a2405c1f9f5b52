// Package s3server runs one S3 server for a test binary, Versity's S3 gateway (versitygw)
// over a temp dir, from the binary $IDNODE_S3_SERVER names: the S3 tests of
// internal/backupstore, node, cmd/idctl and test/e2e/backups use it.
package s3server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/idnode/idnode/test/helpers/logbuf"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
)

const (
	// Env names the versitygw binary the S3 tests run; .ci/run builds it from the module
	// internal/backupstore/versitygw once and sets it.
	Env          = "IDNODE_S3_SERVER"
	serverModule = "internal/backupstore/versitygw"
	serverTool   = "github.com/versity/versitygw/cmd/versitygw"
	// startTimeout bounds the gateway's start on a loaded machine (well under a second idle).
	startTimeout = 60 * time.Second
	stopTimeout  = 10 * time.Second

	// AccessKey and SecretKey are the server's one S3 identity, its root account.
	AccessKey = "backup-test"
	SecretKey = "backup-test-secret"
)

// Server is one S3 gateway on a free loopback port.
type Server struct {
	Endpoint string // host:port of the S3 gateway
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared starts the S3 server once for the test binary, or skips t when $IDNODE_S3_SERVER is
// not set; under CI=true it fails t instead. The binary's TestMain calls Stop.
func Shared(t *testing.T) *Server {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("$%s is not set: .ci/run builds versitygw once (go -C %s build -gcflags=all=-l -o …) and names it there", Env, serverModule)
		}
		t.Skipf("$%s is not set: build the S3 server with go -C %s build -o /tmp/versitygw %s and set it to run the S3 tests", Env, serverModule, serverTool)
	}
	shared.once.Do(func() {
		// A start-up that ends this test (FreePort's t.Fatal) leaves this error for the others.
		shared.err = errors.New("the S3 server failed to start in an earlier test")
		start := time.Now()
		shared.srv, shared.err = startServer(t, bin)
		t.Logf("the S3 gateway answered %v after its start", time.Since(start).Round(time.Millisecond))
	})
	if shared.err != nil {
		t.Fatalf("starting the S3 server: %v", shared.err)
	}
	return shared.srv
}

// Stop stops the shared S3 server, if one was started; call it from TestMain after m.Run.
func Stop() {
	if stopServer != nil {
		stopServer()
	}
}

var stopServer func()

// startServer runs versitygw's POSIX backend on a temp dir: each bucket a folder, each object a
// file, their metadata (content type, ETag, upload state) in files under a sidecar folder
// rather than in extended attributes, which a temp dir's file system may not keep. One
// account, the root, with the test's keys; nothing listens but the S3 port.
func startServer(t *testing.T, bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "s3server-")
	if err != nil {
		return nil, err
	}
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	endpoint := "127.0.0.1:" + strconv.Itoa(loopback.FreePort(t))
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--region", "us-east-1",
		"--port", endpoint, "--quiet", "posix", "--sidecar", meta, data)
	cmd.Dir = dir
	out := &logbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopServer = func() {
		_ = cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(stopTimeout):
			fmt.Fprintf(os.Stderr, "versitygw (pid %d) not reaped %v after SIGKILL\n", cmd.Process.Pid, stopTimeout)
		}
		_ = os.RemoveAll(dir)
	}
	srv := &Server{Endpoint: endpoint}
	client, err := minio.New(srv.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		return nil, err
	}
	err = poll.Wait(startTimeout, 100*time.Millisecond, func() error {
		select {
		case <-exited:
			return fmt.Errorf("exited during start-up")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := client.ListBuckets(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("the S3 gateway on %s does not answer: %w\n%s", srv.Endpoint, err, out.String())
	}
	return srv, nil
}

var bucketSeq atomic.Int64

// NewBucket makes a bucket of its own for one test.
func (s *Server) NewBucket(t *testing.T) string {
	t.Helper()
	client, err := minio.New(s.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	bucket := fmt.Sprintf("backups-%d", bucketSeq.Add(1))
	if err := client.MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("making bucket %s: %v", bucket, err)
	}
	return bucket
}
