package main

import (
	"net"
	"net/netip"
	"os"
)

// advertisable returns listen as an address to advertise. A wildcard host (0.0.0.0, ::, or
// none), which no other node can dial, becomes this machine's host name, so a node in a container
// started with no flags serves like `go run ./cmd/idnode`. A node that
// others must reach by another name needs --raft-advertise and --grpc-advertise.
func advertisable(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip, err := netip.ParseAddr(host); host != "" && (err != nil || !ip.IsUnspecified()) {
		return listen
	}
	name, err := os.Hostname()
	if err != nil || name == "" {
		return listen // the Raft transport refuses the wildcard, naming the flag to set
	}
	return net.JoinHostPort(name, port)
}
