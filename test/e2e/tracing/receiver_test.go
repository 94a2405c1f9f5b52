package tracing

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/prebuilt"
)

const (
	// collectorConfig is the configuration the test runs the Collector with, beside its
	// main.go in the module of its own that keeps its dependencies out of the root go.mod.
	collectorConfig    = "test/e2e/tracing/otelcol/otelcol.yaml"
	collectorStartTime = 30 * time.Second
	collectorStopTime  = 10 * time.Second
)

// collector is one OpenTelemetry Collector process (test/e2e/tracing/otelcol) on free
// loopback ports, appending the spans it receives to a file of the test's.
type collector struct {
	OTLPGRPC string // host:port of the OTLP/gRPC receiver
	OTLPHTTP string // host:port of the OTLP/HTTP receiver
	Spans    string // the file of spans, a line of OTLP/JSON per batch
}

// startCollector starts the Collector, built once per run (test/helpers/prebuilt), and waits
// until both its receivers answer and its file exists. It is killed at the end of the test;
// its output is shown if the test failed.
func startCollector(t *testing.T) *collector {
	t.Helper()
	bin := prebuilt.Otelcol.ForTest(t, "../../..")
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{OTLPGRPC: e2etest.FreeAddr(t), OTLPHTTP: e2etest.FreeAddr(t), Spans: filepath.Join(t.TempDir(), "spans.jsonl")}
	cmd := exec.Command(bin, "--config", filepath.Join(root, collectorConfig))
	cmd.Env = nodeenv.Clean(
		"OTELCOL_OTLP_GRPC_ADDR="+c.OTLPGRPC,
		"OTELCOL_OTLP_HTTP_ADDR="+c.OTLPHTTP,
		"OTELCOL_SPANS_FILE="+c.Spans,
	)
	out := e2etest.NewLogBuffer()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the Collector: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(collectorStopTime):
			t.Errorf("the Collector (pid %d) not reaped %v after SIGKILL", cmd.Process.Pid, collectorStopTime)
		}
		if t.Failed() {
			t.Logf("the Collector's output:\n%s", out.String())
		}
	})
	e2etest.Eventually(t, collectorStartTime, "the Collector answers", func() error {
		select {
		case <-exited:
			t.Fatalf("the Collector exited during start-up:\n%s", out.String())
		default:
		}
		for _, addr := range []string{c.OTLPGRPC, c.OTLPHTTP} {
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				return fmt.Errorf("OTLP receiver: %w", err)
			}
			_ = conn.Close()
		}
		if _, err := os.Stat(c.Spans); err != nil {
			return fmt.Errorf("file exporter: %w", err)
		}
		return nil
	})
	return c
}
