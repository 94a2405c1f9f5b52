package hostile

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// A truncated protobuf message used to be answered INTERNAL (grpc-go's
// answer to any codec error); it is bad input. Nothing moves either.
func TestTruncatedProtobufIsInvalidArgument(t *testing.T) {
	t.Parallel()
	p, c := e2etest.StartSingle(t)
	conn := e2etest.DialConn(t, p.GRPCAddr)
	whole := wireStrings(map[protowire.Number]string{1: "users|", 3: "a-request-id"})
	for name, req := range map[string]rawRequest{
		"cut in a string":     whole[:len(whole)-4],
		"cut after a tag":     whole[:len(whole)-len("a-request-id")-1],
		"length past the end": append(rawRequest{0x0a, 0x7f}, "users|"...),
	} {
		var resp idnodev1.GenerateResponse
		err := conn.Invoke(e2etest.RPCCtx(t), "/idnode.v1.IdService/Generate", req, &resp, grpc.ForceCodecV2(rawCodec{}))
		if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.InvalidInput ||
			!strings.Contains(status.Convert(err).Message(), "idnode.v1.GenerateRequest") {
			t.Errorf("Generate with a request %s: %v; want INVALID_ARGUMENT (INVALID_INPUT) naming the message", name, err)
		}
	}
	e2etest.ExpectGenerate(t, c, "users|", "users/1")
}

// /debug/pprof/cmdline on the metrics port printed the node's command line,
// an admin token given as a flag included. The profiler is served on a loopback metrics
// address only, without cmdline; a token given as a flag is warned about; one in a file works.
func TestProfilerShowsNoAdminToken(t *testing.T) {
	t.Parallel()
	const token = "s3cret-flag-token"
	metrics := e2etest.FreeAddr(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{Extra: []string{"--metrics-addr", metrics, "--pprof", "--admin-token", token}})
	p.WaitServing(e2etest.ServeTimeout)
	for _, path := range []string{"/debug/pprof/cmdline", "/debug/pprof/"} {
		code, body := e2etest.HTTPGet(t, metrics, path)
		if strings.Contains(body, token) {
			t.Errorf("GET %s shows the admin token", path)
		}
		if path == "/debug/pprof/cmdline" && code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
		if path == "/debug/pprof/" && code != http.StatusOK {
			t.Errorf("GET %s = %d; want 200 (the profiler is on)", path, code)
		}
	}
	e2etest.Eventually(t, 5*time.Second, "a WARN about --admin-token", func() error {
		if !strings.Contains(p.Logs.String(), "--admin-token-file") {
			return os.ErrNotExist
		}
		return nil
	})

	// On an address other machines reach, --pprof stops the node at start, with the reason.
	bad := e2etest.StartNode(t, e2etest.NodeOpts{Extra: []string{"--metrics-addr", "0.0.0.0:0", "--pprof"}})
	if st, err := bad.WaitExit(10 * time.Second); err != nil || st.ExitCode() != 2 || !strings.Contains(bad.Logs.String(), "not a loopback address") {
		t.Errorf("--pprof with --metrics-addr 0.0.0.0:0: %v, %v; want exit 2 naming loopback", st, err)
	}

	// The token from a file: admin calls take it; the log has no warning.
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("file-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	q := e2etest.StartNode(t, e2etest.NodeOpts{Extra: []string{"--admin-token-file", file}})
	q.WaitServing(e2etest.ServeTimeout)
	e2etest.MustIdctl(t, []string{"IDNODE_ADDR=" + q.GRPCAddr, "IDNODE_TOKEN=file-token"}, "db", "create", "fromfile")
	e2etest.WantIdctlFailure(t, 1, []string{"IDNODE_ADDR=" + q.GRPCAddr, "IDNODE_TOKEN=wrong"}, []string{"db", "create", "other"}, "UNAUTHENTICATED")
	if strings.Contains(q.Logs.String(), "--admin-token-file or IDNODE_ADMIN_TOKEN instead") {
		t.Errorf("a token from a file was warned about as a flag")
	}
}
