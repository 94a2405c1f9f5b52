package server

import (
	"context"
	"net/netip"
	"testing"

	"google.golang.org/grpc/metadata"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost:7080": true, "127.0.0.1": true, "127.9.9.9:80": true, "[::1]:7080": true, "[::1]": true,
		"": false, "evil.example:7080": false, "localhost.evil.example": false, "10.0.0.1:7080": false, "0.0.0.0:7080": false,
		"foo.localhost": false, "[::ffff:10.0.0.1]:80": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// A handle the gateway entered names its caller until the request leaves; any other handle,
// a forged one included, names none.
func TestHTTPCallersHandles(t *testing.T) {
	callers := NewHTTPCallers()
	c := HTTPCaller{Addr: netip.MustParseAddrPort("127.0.0.1:5000"), Host: "localhost:7080"}
	handle, leave := callers.Enter(c)
	in := func(h ...string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs(append([]string{GatewayCallHeader}, h...)...))
	}
	if got, ok := callers.lookup(in(handle)); !ok || got != c || !got.loopback() {
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
	if (HTTPCaller{Addr: c.Addr, Host: "evil.example:7080"}).loopback() {
		t.Error("a loopback client asking for a foreign host counts as loopback")
	}
}
