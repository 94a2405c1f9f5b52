package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// testGateway is a single-node cluster's services behind the gateway, with its HTTP handler
// over the direct path and over the in-process gRPC server, the way every call went before.
type testGateway struct {
	direct, inprocess http.Handler
}

func newTestGateway(t testing.TB, limits server.Limits, extra Interceptors) testGateway {
	t.Helper()
	node, err := cluster.Open(t.Context(), cluster.Config{ID: "A", DataDir: t.TempDir(), RaftAddr: loopback.FreeAddr(t),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	for deadline := time.Now().Add(10 * time.Second); !node.IsLeader(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the single node did not become leader in 10 s")
		}
	}
	srv := server.New(server.Config{Tag: "A", Limits: limits}, node, nil)
	t.Cleanup(srv.Close)
	g, err := newGatewayConn(srv, extra, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.stop(0) })
	opts := Options{AllowedHosts: []string{"ids.example.com"}}
	direct, err := newHandler(t.Context(), g.direct, g.callers, opts)
	if err != nil {
		t.Fatal(err)
	}
	inprocess, err := newHandler(t.Context(), g.conn, g.callers, opts)
	if err != nil {
		t.Fatal(err)
	}
	return testGateway{direct: direct, inprocess: inprocess}
}

// answer is what an HTTP caller sees of a response: its code, the gRPC metadata headers
// grpc-gateway passes on, and its body.
type answer struct {
	code    int
	headers string
	body    string
}

// transportMetadata is what the in-process server's HTTP/2 transport adds to a call's
// metadata, no metadata of idnode's: the content type (in the trailers when a refusal has no
// headers), and on a refusal the status the body already gives, in binary.
var transportMetadata = map[string]bool{"Grpc-Metadata-Content-Type": true, "Grpc-Trailer-Content-Type": true,
	"Grpc-Trailer-Grpc-Status-Details-Bin": true}

func call(h http.Handler, method, host, path, body string) answer {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host = host
	r.RemoteAddr = "127.0.0.1:5000"
	r.Header.Set("TE", "trailers") // grpc-gateway passes trailers on only then
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var headers []string
	res := w.Result()
	for k, v := range res.Trailer {
		res.Header[k] = v
	}
	for k, v := range res.Header {
		if (strings.HasPrefix(k, "Grpc-Metadata-") || strings.HasPrefix(k, "Grpc-Trailer-")) && !transportMetadata[k] {
			headers = append(headers, k+": "+strings.Join(v, ","))
		}
	}
	slices.Sort(headers)
	return answer{code: w.Code, headers: strings.Join(headers, "; "), body: w.Body.String()}
}

// An HTTP call on the direct path is answered as on the in-process gRPC server: the same
// code, reason, message, and the headers and trailers the node set (the leader hint is one),
// whether the node serves it or refuses it for its caller (not admin from a foreign Host) or
// for its input.
func TestDirectCallsAnswerAsTheInProcessServer(t *testing.T) {
	setMetadata := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		_ = grpc.SetHeader(ctx, metadata.Pairs("idnode-test-header", "h"))
		_ = grpc.SetTrailer(ctx, metadata.Pairs("idnode-test-trailer", "t"))
		return handler(ctx, req)
	}
	g := newTestGateway(t, server.Limits{}, Interceptors{Unary: []grpc.UnaryServerInterceptor{setMetadata}})
	for _, try := range []struct {
		name, method, host, path, body string
		code                           int
		reason                         string
	}{
		{"served", "POST", "localhost:7080", "/v1/ids", `{"id":""}`, http.StatusOK, ""},
		{"admin from loopback", "GET", "localhost:7080", "/v1/keys", "", http.StatusOK, ""},
		{"admin refused for its Host", "GET", "ids.example.com", "/v1/keys", "", http.StatusForbidden, "PERMISSION_DENIED"},
		{"refused input", "POST", "localhost:7080", "/v1/identities/orders:next", `{"count":"1000000"}`, http.StatusBadRequest, "INVALID_INPUT"},
	} {
		direct := call(g.direct, try.method, try.host, try.path, try.body)
		inprocess := call(g.inprocess, try.method, try.host, try.path, try.body)
		if direct.code != try.code || !strings.Contains(direct.body, try.reason) {
			t.Errorf("%s: direct answer %+v; want HTTP %d with %q", try.name, direct, try.code, try.reason)
		}
		if try.name == "served" { // a new ID each call
			direct.body, inprocess.body = "", ""
		}
		if direct != inprocess {
			t.Errorf("%s: direct answer %+v, in-process server's %+v", try.name, direct, inprocess)
		}
	}
	if a := call(g.direct, "POST", "localhost:7080", "/v1/ids", `{"id":""}`); a.headers != "Grpc-Metadata-Idnode-Test-Header: h; Grpc-Trailer-Idnode-Test-Trailer: t" {
		t.Errorf("a served call's headers are %q; want the header and the trailer the node set", a.headers)
	}
}

// A direct call counts among the node's calls in flight (Limits.MaxCalls) for as long as its
// handler runs, and one over the limit is refused NODE_BUSY, as the gRPC server's tap refuses it.
func TestDirectCallsAreLimited(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hold := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		held := false
		once.Do(func() { held = true })
		if held {
			close(entered)
			<-release
		}
		return handler(ctx, req)
	}
	g := newTestGateway(t, server.Limits{MaxCalls: 1}, Interceptors{Unary: []grpc.UnaryServerInterceptor{hold}})
	first := make(chan answer)
	go func() { first <- call(g.direct, "POST", "localhost:7080", "/v1/ids", `{"id":""}`) }()
	select {
	case <-entered:
	case a := <-first:
		t.Fatalf("the first call was answered %+v without passing the gateway's interceptors", a)
	}
	if a := call(g.direct, "POST", "localhost:7080", "/v1/ids", `{"id":""}`); a.code != http.StatusTooManyRequests || !strings.Contains(a.body, "NODE_BUSY") {
		t.Errorf("a call over the limit = %+v; want HTTP 429, NODE_BUSY", a)
	}
	close(release)
	if a := <-first; a.code != http.StatusOK {
		t.Errorf("the held call = %+v", a)
	}
	if a := call(g.direct, "POST", "localhost:7080", "/v1/ids", `{"id":""}`); a.code != http.StatusOK {
		t.Errorf("a call after the held one ended = %+v; want it served", a)
	}
}

// The gateway's extra interceptors (metrics) see every direct call the node's checks let
// through or refuse, with its method and code, as on the in-process server.
func TestDirectCallsRunTheExtraInterceptors(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	count := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		mu.Lock()
		seen = append(seen, info.FullMethod+" "+status.Code(err).String())
		mu.Unlock()
		return resp, err
	}
	g := newTestGateway(t, server.Limits{}, Interceptors{Unary: []grpc.UnaryServerInterceptor{count}})
	for _, h := range []http.Handler{g.direct, g.inprocess} {
		call(h, "POST", "localhost:7080", "/v1/ids", `{"id":""}`)
		call(h, "POST", "localhost:7080", "/v1/identities/orders:next", `{"count":"1000000"}`)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "/idnode.v1.IdService/Generate OK,/idnode.v1.IdService/NextIdentity InvalidArgument"
	if got := strings.Join(seen, ","); got != want+","+want {
		t.Errorf("the interceptor saw %s; want %s on each path", got, want)
	}
}

// An identity call through the whole HTTP handler, on each path to the services, against a
// single-node cluster: the CPU time and allocations the in-process gRPC hop costs.
func BenchmarkGatewayIdentityCall(b *testing.B) {
	g := newTestGateway(b, server.Limits{}, Interceptors{})
	for _, path := range []struct {
		name string
		h    http.Handler
	}{{"inprocess", g.inprocess}, {"direct", g.direct}} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			before := processCPU(b)
			for b.Loop() {
				if a := call(path.h, "POST", "localhost:7080", "/v1/identities/orders:next", `{"count":"1"}`); a.code != http.StatusOK {
					b.Fatal(a)
				}
			}
			// The wall time is mostly the Raft round's fsync; the process's CPU time is the cost.
			b.ReportMetric(float64((processCPU(b)-before).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// processCPU is the CPU time the process has used, in user and system mode.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
