// Package flowcontrol sets the HTTP/2 flow-control windows of idnode's gRPC servers and
// clients to fixed sizes.
//
// By default grpc-go sizes a connection's windows with a bandwidth-delay estimator: on every
// connection it keeps a PING (and a WINDOW_UPDATE) in flight, one a round trip, for as long as
// data flows. On a connection of small calls (identities, a follower's relays) the estimate
// never grows the window, so the pings never stop, and each is a frame the peer reads and
// answers: about a read and a write more on each side per round trip. With fixed windows, 64
// round-robin callers of identities cost each follower a third fewer reads and a sixth fewer
// writes (docs/BENCHMARKS.md, "Identities vs etcd and PostgreSQL").
//
// The sizes bound what a peer may send before it is read, well under the 16 MiB the estimator
// may grow a window to, and keep a large transfer (a backup, a restore) near 20 MB/s over a
// 50 ms round trip.
package flowcontrol

import "google.golang.org/grpc"

const (
	// StreamWindow is what one call may have in flight unread.
	StreamWindow = 1 << 20
	// ConnWindow is what one connection's calls may have in flight unread, together.
	ConnWindow = 4 << 20
)

// ServerOptions fix a gRPC server's windows.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.StaticStreamWindowSize(StreamWindow), grpc.StaticConnWindowSize(ConnWindow)}
}

// DialOptions fix a gRPC client connection's windows.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithStaticStreamWindowSize(StreamWindow), grpc.WithStaticConnWindowSize(ConnWindow)}
}
