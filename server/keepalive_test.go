package server

import (
	"testing"

	"github.com/idnode/idnode/internal/forward"
)

// A node pings its connections to other nodes (forward.PingEvery) on their internal servers,
// whose keepalive policy sends GOAWAY to a client that pings more often than keepaliveMinPing:
// the two must agree, or every node-to-node connection would be cut after its third ping.
func TestNodesPingEachOtherNoMoreOftenThanTheServerAllows(t *testing.T) {
	t.Parallel()
	if forward.PingEvery < keepaliveMinPing {
		t.Fatalf("nodes ping every %v; the internal server allows a ping every %v at most", forward.PingEvery, keepaliveMinPing)
	}
}
