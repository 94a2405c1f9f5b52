package main

import (
	"net"
	"os"
	"testing"
)

// A wildcard listen address advertises this machine's host name; any other is advertised as
// it is, and the defaults of a node alone follow it.
func TestWildcardListenAdvertisesTheHostName(t *testing.T) {
	name, err := os.Hostname()
	if err != nil || name == "" {
		t.Skipf("no host name: %v", err)
	}
	for listen, want := range map[string]string{
		"0.0.0.0:7000":        net.JoinHostPort(name, "7000"),
		"[::]:7000":           net.JoinHostPort(name, "7000"),
		":7000":               net.JoinHostPort(name, "7000"),
		"127.0.0.1:7100":      "127.0.0.1:7100",
		"10.0.0.5:7000":       "10.0.0.5:7000",
		"node-a.example:7000": "node-a.example:7000",
	} {
		if got := advertisable(listen); got != want {
			t.Errorf("advertisable(%q) = %q; want %q", listen, got, want)
		}
	}
	c := mustParse(t, []string{"--grpc-addr", "0.0.0.0:7070", "--raft-addr", "0.0.0.0:7000"}, nil)
	if err := c.placeSelf(); err != nil {
		t.Fatal(err)
	}
	if c.grpcAdvertise != net.JoinHostPort(name, "7070") || c.raftAdvertise != net.JoinHostPort(name, "7000") {
		t.Errorf("a lone node on 0.0.0.0 advertises gRPC %q, Raft %q; want its host name", c.grpcAdvertise, c.raftAdvertise)
	}
}
