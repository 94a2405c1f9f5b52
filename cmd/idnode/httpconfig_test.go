package main

import (
	"io"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHTTPLimitsHaveDefaultsAndFlags(t *testing.T) {
	c := mustParse(t, nil, nil)
	if h := c.http; h.maxBody != 4<<20 || h.maxBodyMemory != 64<<20 || h.readTimeout != 30*time.Second ||
		h.idleTimeout != 2*time.Minute || h.maxConns != 1024 || len(h.allowedOrigins) != 0 || len(h.allowedHosts) != 0 {
		t.Fatalf("HTTP defaults = %+v", h)
	}
	c = mustParse(t, []string{"--http-max-body", "64KiB", "--http-read-timeout", "5s", "--http-allowed-origins", "https://Ops.example.com, http://localhost:3000"},
		map[string]string{"IDNODE_HTTP_MAX_CONNS": "10", "IDNODE_HTTP_MAX_BODY_MEMORY": "1MiB", "IDNODE_HTTP_ALLOWED_HOSTS": "IDs.example.com, idnode-a"})
	if h := c.http; h.maxBody != 64<<10 || h.maxBodyMemory != 1<<20 || h.readTimeout != 5*time.Second || h.maxConns != 10 ||
		strings.Join(h.allowedOrigins, " ") != "https://ops.example.com http://localhost:3000" ||
		strings.Join(h.allowedHosts, " ") != "ids.example.com idnode-a" {
		t.Fatalf("HTTP flags = %+v", h)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--http-max-body", "0"}, "--http-max-body"},
		{[]string{"--http-max-body", "128MiB"}, "--http-max-body-memory must be a size of at least --http-max-body"},
		{[]string{"--http-read-timeout", "0s"}, "--http-read-timeout"},
		{[]string{"--http-max-conns", "0"}, "--http-max-conns"},
		{[]string{"--console-sample-interval", "500ms"}, "--console-sample-interval must be between 1s and 1m0s, got 500ms"},
		{[]string{"--console-sample-interval", "2m"}, "--console-sample-interval must be between 1s and 1m0s, got 2m0s"},
		{[]string{"--http-allowed-origins", "*"}, "--http-allowed-origins"},
		{[]string{"--http-allowed-hosts", "ids.example.com:7080"}, "--http-allowed-hosts"},
		{[]string{"--http-allowed-hosts", "https://ids.example.com"}, "--http-allowed-hosts"},
	} {
		_, err := parseConfig(bad.args, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseConfig(%q) = %v; want an error with %q", bad.args, err, bad.want)
		}
	}
}

// A request's Host may name the node by the names of its own addresses and machine, besides
// the operator's list.
func TestHTTPHostsIncludeTheNodesOwnNames(t *testing.T) {
	c := mustParse(t, []string{"--http-allowed-hosts", "ids.example.com", "--grpc-advertise", "Raft-A:7070", "--http-addr", "0.0.0.0:7080"}, nil)
	got := c.http.hosts(c.httpAddr, c.grpcAddr, c.grpcAdvertise, c.raftAddr, c.raftAdvertise)
	want := []string{"ids.example.com", "raft-a"}
	if name, err := os.Hostname(); err == nil {
		want = append(want, strings.ToLower(name))
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("hosts = %q; want %q among them", got, w)
		}
	}
	for _, g := range got {
		if _, err := netip.ParseAddr(g); err == nil {
			t.Errorf("hosts = %q: %q is an address, which passes anyway", got, g)
		}
	}
}
