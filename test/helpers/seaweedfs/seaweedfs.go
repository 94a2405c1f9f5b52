// Package seaweedfs runs one SeaweedFS (an S3-compatible object store) for a test binary, from
// the binary $IDNODE_SEAWEEDFS names: the S3 tests of internal/backupstore and node use it.
package seaweedfs

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
)

const (
	// Env names the SeaweedFS binary (weed) the S3 tests run; .ci/run builds it from
	// the module internal/backupstore/seaweedfs once and sets it.
	Env             = "IDNODE_SEAWEEDFS"
	seaweedfsModule = "internal/backupstore/seaweedfs"
	seaweedfsTool   = "github.com/seaweedfs/seaweedfs/weed"
	// seaweedfsStartTimeout bounds the start of its master, volume server, filer and S3
	// gateway on a loaded machine (a few seconds idle).
	seaweedfsStartTimeout = 90 * time.Second
	seaweedfsStopTimeout  = 10 * time.Second

	// AccessKey and SecretKey are the server's one S3 identity.
	AccessKey = "backup-test"
	SecretKey = "backup-test-secret"
)

// Server is one SeaweedFS, all in one process, with an S3 gateway on a free loopback port.
type Server struct {
	Endpoint string // host:port of the S3 gateway
}

var seaweedfs struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared starts SeaweedFS once for the test binary (it takes seconds to start), or skips t
// when $IDNODE_SEAWEEDFS is not set; under CI=true it fails t instead. The binary's TestMain
// calls Stop.
func Shared(t *testing.T) *Server {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("$%s is not set: .ci/run builds SeaweedFS once (go -C %s build -gcflags=all=-l -o …) and names it there", Env, seaweedfsModule)
		}
		t.Skipf("$%s is not set: build SeaweedFS with go -C %s build -o /tmp/weed %s and set it to run the S3 tests", Env, seaweedfsModule, seaweedfsTool)
	}
	seaweedfs.once.Do(func() {
		// A start-up that ends this test (FreePort's t.Fatal) leaves this error for the others.
		seaweedfs.err = errors.New("SeaweedFS failed to start in an earlier test")
		start := time.Now()
		seaweedfs.srv, seaweedfs.err = startSeaweedFS(t, bin)
		t.Logf("SeaweedFS's S3 gateway answered %v after its start", time.Since(start).Round(time.Millisecond))
	})
	if seaweedfs.err != nil {
		t.Fatalf("starting SeaweedFS: %v", seaweedfs.err)
	}
	return seaweedfs.srv
}

// Stop stops the shared SeaweedFS, if one was started; call it from TestMain after m.Run.
func Stop() {
	if stopSeaweedFS != nil {
		stopSeaweedFS()
	}
}

var stopSeaweedFS func()

// startSeaweedFS runs `weed mini` in a temp dir with every port its own free one, one S3
// identity with the test's keys, and nothing that calls out (telemetry) or listens beyond
// what the test needs (WebDAV, the admin UI, Iceberg and Lance catalogs).
func startSeaweedFS(t *testing.T, bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "seaweedfs-")
	if err != nil {
		return nil, err
	}
	config := map[string]any{"identities": []any{map[string]any{
		"name":        "backups",
		"credentials": []any{map[string]string{"accessKey": AccessKey, "secretKey": SecretKey}},
		"actions":     []string{"Admin", "Read", "List", "Write", "Tagging"},
	}}}
	configJSON, _ := json.Marshal(config)
	configPath := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(configPath, configJSON, 0o600); err != nil {
		return nil, err
	}
	port := func() string { return strconv.Itoa(loopback.FreePort(t)) }
	// weed mini makes a unix socket in /tmp, whatever TMPDIR says, for each gRPC port, and
	// leaves it when killed: the test removes them.
	var grpcSockets []string
	grpcPort := func(service string) string {
		p := port()
		grpcSockets = append(grpcSockets, "/tmp/seaweedfs-"+service+"-grpc-"+p+".sock")
		return p
	}
	s3Port := port()
	args := []string{"mini",
		"-dir=" + filepath.Join(dir, "data"), "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + port(), "-master.port.grpc=" + grpcPort("master"), "-master.telemetry=false",
		"-volume.port=" + port(), "-volume.port.grpc=" + grpcPort("volume"),
		"-filer.port=" + port(), "-filer.port.grpc=" + grpcPort("filer"), "-filer.localSocket=" + filepath.Join(dir, "filer.sock"),
		"-s3.port=" + s3Port, "-s3.port.grpc=" + grpcPort("s3"), "-s3.localSocket=" + filepath.Join(dir, "s3.sock"),
		"-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.config=" + configPath,
		"-admin.ui=false", "-admin.port=" + port(), "-admin.port.grpc=" + grpcPort("admin"), "-admin.port.legacy=0",
		"-webdav=false",
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopSeaweedFS = func() {
		_ = cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(seaweedfsStopTimeout):
			fmt.Fprintf(os.Stderr, "SeaweedFS (pid %d) not reaped %v after SIGKILL\n", cmd.Process.Pid, seaweedfsStopTimeout)
		}
		_ = os.RemoveAll(dir)
		for _, sock := range grpcSockets {
			_ = os.Remove(sock)
		}
	}
	srv := &Server{Endpoint: "127.0.0.1:" + s3Port}
	client, err := minio.New(srv.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		return nil, err
	}
	// The gateway answers once master, volume server and filer are up; a bucket listing
	// goes through all of them.
	err = poll.Wait(seaweedfsStartTimeout, 200*time.Millisecond, func() error {
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

// lockedBuffer is the server's output, written by its process's copy goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
