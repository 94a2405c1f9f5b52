package server

import (
	"net/netip"
	"testing"
)

func TestLoopbackHost(t *testing.T) {
	t.Parallel()
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

// A caller counts as loopback only when it also asked for a loopback host.
func TestHTTPCallerLoopback(t *testing.T) {
	t.Parallel()
	addr := netip.MustParseAddrPort("127.0.0.1:5000")
	if !(HTTPCaller{Addr: addr, Host: "localhost:7080"}).loopback() {
		t.Error("a loopback client asking for localhost does not count as loopback")
	}
	if (HTTPCaller{Addr: addr, Host: "evil.example:7080"}).loopback() {
		t.Error("a loopback client asking for a foreign host counts as loopback")
	}
}
