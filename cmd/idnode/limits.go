package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// defaultMaxConns bounds the gRPC port's connections (--grpc-max-conns): a client of idnode
// keeps one per node, so a thousand is a thousand application processes; past it a caller is
// only opening connections to exhaust the node's file descriptors.
const defaultMaxConns = 1024

// uintFlag parses a flag into a uint32 that must be at least 1.
func uintFlag(dst *uint32) func(string) error {
	return func(s string) error {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil || n < 1 {
			return fmt.Errorf("want a whole number from 1 to %d, got %q", uint32(1<<32-1), s)
		}
		*dst = uint32(n)
		return nil
	}
}

// readAdminToken takes the admin token from --admin-token-file: its first line, without
// surrounding space (a trailing newline is what editors and `echo` leave).
func (c *config) readAdminToken(file string) error {
	if file == "" {
		return nil
	}
	if c.adminToken != "" {
		return fmt.Errorf("--admin-token-file %s and --admin-token (or IDNODE_ADMIN_TOKEN) both give the admin token: give one", file)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("--admin-token-file: %w", err)
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	if c.adminToken = strings.TrimSpace(line); c.adminToken == "" {
		return fmt.Errorf("--admin-token-file %s: its first line is empty", file)
	}
	c.adminTokenOnCommandLine = false
	return nil
}

// isLoopbackAddr reports whether a host:port listens on loopback only: an IP of the loopback
// range or localhost, not a name that may resolve elsewhere nor an empty host (every
// interface).
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
