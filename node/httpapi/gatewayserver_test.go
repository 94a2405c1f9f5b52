package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/inprocess"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// A handle the gateway entered names its caller until the request leaves; any other handle,
// a forged one included, names none.
func TestHTTPCallersHandles(t *testing.T) {
	callers := newCallers()
	c := server.HTTPCaller{Addr: netip.MustParseAddrPort("127.0.0.1:5000"), Host: "localhost:7080"}
	handle, leave := callers.enter(c)
	in := func(h ...string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs(append([]string{GatewayCallHeader}, h...)...))
	}
	if got, ok := callers.lookup(in(handle)); !ok || got != c {
		t.Fatalf("lookup of a live handle = %+v %v", got, ok)
	}
	for _, ctx := range []context.Context{in("00000000000000000000000000000000"), context.Background(),
		metadata.NewIncomingContext(context.Background(), metadata.Pairs(GatewayCallHeader, handle, GatewayCallHeader, handle))} {
		if got, ok := callers.lookup(ctx); ok {
			t.Errorf("lookup without exactly one live handle = %+v", got)
		}
	}
	leave()
	if _, ok := callers.lookup(in(handle)); ok {
		t.Fatal("a handle still names its caller after the request left")
	}
}

// The gateway's server judges admin by the caller the handle names, and refuses a call with
// no live handle, whatever metadata it carries.
func TestGatewayServerJudgesTheHTTPCaller(t *testing.T) {
	// A real single-node Raft: the server's checks need a cluster behind them.
	node, err := cluster.Open(t.Context(), cluster.Config{ID: "A", DataDir: t.TempDir(), RaftAddr: loopback.FreeAddr(t),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	s := server.New(server.Config{Tag: "A"}, node, nil)
	t.Cleanup(s.Close)
	callers := newCallers()
	lis := inprocess.Listen()
	gs := grpc.NewServer(gatewayServerOptions(s, callers)...)
	s.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient("passthrough:///inprocess", grpc.WithContextDialer(lis.DialContext),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	admin := idnodev1.NewClusterServiceClient(conn)
	listKeys := func(md metadata.MD) error {
		ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), md), 5*time.Second)
		defer cancel()
		_, err := admin.ListKeys(ctx, &idnodev1.ListKeysRequest{})
		return err
	}
	forged := metadata.Pairs("idnode-http-peer", "127.0.0.1:1", "idnode-http-admin-cert", "true", GatewayCallHeader, "00112233445566778899aabbccddeeff")
	if err := listKeys(forged); status.Code(err) != codes.PermissionDenied || reason.Of(err) == "" {
		t.Fatalf("ListKeys with forged metadata and no live handle = %v; want PERMISSION_DENIED with a reason", err)
	}
	local, network := netip.MustParseAddrPort("127.0.0.1:5000"), netip.MustParseAddrPort("10.1.2.3:5000")
	for _, try := range []struct {
		caller server.HTTPCaller
		admin  bool
	}{
		{server.HTTPCaller{Addr: local, Host: "localhost:7080"}, true},
		{server.HTTPCaller{Addr: local, Host: "evil.example:7080"}, false},
		{server.HTTPCaller{Addr: network, Host: "localhost:7080"}, false},
		{server.HTTPCaller{Addr: network, Host: "ids.example.com", AdminCert: true}, true},
	} {
		handle, leave := callers.enter(try.caller)
		err := listKeys(metadata.Pairs(GatewayCallHeader, handle))
		leave()
		if denied := status.Code(err) == codes.PermissionDenied; denied == try.admin {
			t.Errorf("ListKeys from %+v = %v; want admin %v", try.caller, err, try.admin)
		}
	}
}
