package tracing

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
)

const (
	// jaegerModule is the module of its own that pins Jaeger (a tool directive), so that its
	// dependencies stay out of the root go.mod.
	jaegerModule = "test/e2e/tracing/jaeger"
	// jaegerEnv names a Jaeger binary built beforehand; .ci/run builds it once and sets it.
	jaegerEnv = "IDNODE_JAEGER"
	// jaegerBuildTimeout bounds a build from a cold cache on two cores (about ten minutes
	// measured under load; seconds from a warm one).
	jaegerBuildTimeout = 15 * time.Minute
	jaegerStartTimeout = 30 * time.Second
	jaegerStopTimeout  = 10 * time.Second
)

var jaegerBuild struct {
	once sync.Once
	path string
	err  error
}

// jaegerBinary is $IDNODE_JAEGER, or Jaeger built from its module once per test binary. A
// missing receiver fails the test: there is no trace to check without one. `go tool -n` builds
// the module's tool into the build cache and prints its path, so a second run, or another
// clone of the same pinned version, links nothing.
func jaegerBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(jaegerEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("$%s: %v", jaegerEnv, err)
		}
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("$%s is not set: .ci/run builds Jaeger once (go -C %s tool -n jaeger) and names it there", jaegerEnv, jaegerModule)
	}
	jaegerBuild.once.Do(func() {
		root, err := e2etest.RepoRoot()
		if err != nil {
			jaegerBuild.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), jaegerBuildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "-C", filepath.Join(root, jaegerModule), "tool", "-n", "jaeger")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			jaegerBuild.err = fmt.Errorf("go -C %s tool -n jaeger: %w\n%s", jaegerModule, err, stderr.Bytes())
			return
		}
		jaegerBuild.path = strings.TrimSpace(string(out))
	})
	if jaegerBuild.err != nil {
		t.Fatalf("building Jaeger: %v", jaegerBuild.err)
	}
	return jaegerBuild.path
}

// jaeger is one Jaeger all-in-one process with in-memory storage, on free loopback ports.
type jaeger struct {
	OTLPGRPC string // host:port of the OTLP/gRPC receiver
	OTLPHTTP string // host:port of the OTLP/HTTP receiver
	Query    string // http://host:port of the query API
}

// startJaeger starts Jaeger with jaeger/jaeger.yaml and waits until its query API and its
// OTLP receiver answer. It is killed at the end of the test; its output is shown if the test
// failed.
func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	bin := jaegerBinary(t)
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	j := &jaeger{OTLPGRPC: e2etest.FreeAddr(t), OTLPHTTP: e2etest.FreeAddr(t)}
	queryAddr := e2etest.FreeAddr(t)
	j.Query = "http://" + queryAddr
	cmd := exec.Command(bin, "--config", filepath.Join(root, jaegerModule, "jaeger.yaml"))
	cmd.Env = nodeenv.Clean(
		"JAEGER_OTLP_GRPC_ADDR="+j.OTLPGRPC,
		"JAEGER_OTLP_HTTP_ADDR="+j.OTLPHTTP,
		"JAEGER_QUERY_ADDR="+queryAddr,
		"JAEGER_QUERY_GRPC_ADDR="+e2etest.FreeAddr(t),
	)
	out := e2etest.NewLogBuffer()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Jaeger: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(jaegerStopTimeout):
			t.Errorf("Jaeger (pid %d) not reaped %v after SIGKILL", cmd.Process.Pid, jaegerStopTimeout)
		}
		if t.Failed() {
			t.Logf("Jaeger's output:\n%s", out.String())
		}
	})
	e2etest.Eventually(t, jaegerStartTimeout, "Jaeger answers", func() error {
		select {
		case <-exited:
			t.Fatalf("Jaeger exited during start-up:\n%s", out.String())
		default:
		}
		for _, addr := range []string{j.OTLPGRPC, j.OTLPHTTP} {
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				return fmt.Errorf("OTLP receiver: %w", err)
			}
			_ = conn.Close()
		}
		resp, err := httpClient.Get(j.Query + "/api/v3/services")
		if err != nil {
			return fmt.Errorf("query API: %w", err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("query API: %s", resp.Status)
		}
		return nil
	})
	return j
}

// httpClient bounds every request to Jaeger's query API.
var httpClient = &http.Client{Timeout: 5 * time.Second}
