package server

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/tap"

	"github.com/idnode/idnode/internal/flowcontrol"
	"github.com/idnode/idnode/reason"
)

// Every caller may be hostile: without bounds, 100,000 idle streams on one
// connection cost a node 100,000 goroutines and 1.3 GB. A gRPC server bounds what callers may
// hold of it with these; connections per listener are bounded where cmd/idnode accepts them
// (package connlimit). The defaults are far above what a client of idnode needs (the Go
// client makes a connection per node and a call per caller on it), so only an abusive caller
// meets them. docs/bounds.md lists them with their flags.

// Limits bound what the callers of one gRPC server may hold of the node.
type Limits struct {
	// MaxStreams is the most calls one connection may have open at once (HTTP/2
	// SETTINGS_MAX_CONCURRENT_STREAMS): a grpc-go client queues the rest, and a stream opened
	// over it is refused.
	MaxStreams uint32
	// MaxCalls is the most calls the server holds at once over all its connections; one over it
	// is refused RESOURCE_EXHAUSTED, reason NODE_BUSY, before a goroutine is spent on it.
	MaxCalls int64
	// IdleTimeout closes a connection that has had no call for this long (GOAWAY; a gRPC client
	// reconnects when it next needs to).
	IdleTimeout time.Duration
	// MaxAge closes any connection after this long (with ±10% jitter, and MaxAgeGrace for its
	// calls in flight to end), so no stream, idle or not, is held for ever.
	MaxAge      time.Duration
	MaxAgeGrace time.Duration
}

// DefaultLimits are the client port's bounds. 8,192 calls in flight cost a node at most about
// 110 MB when every one is idle (~13 KB each: a goroutine and the stream's buffers).
var DefaultLimits = Limits{
	MaxStreams:  256,
	MaxCalls:    8192,
	IdleTimeout: 30 * time.Minute,
	MaxAge:      2 * time.Hour,
	MaxAgeGrace: 10 * time.Minute,
}

// keepalive: the server pings a connection silent for a minute and closes it when no answer
// comes within 20 s (a peer gone without a FIN); a client may ping at most every 5 s, with or
// without calls (grpc-go's clients never ping unless asked to, and then no more often than
// every 10 s; nodes ask, on their connections to each other: forward.PingEvery), and one that
// pings more is sent GOAWAY: pings cost the server a write each.
const (
	keepaliveTime    = time.Minute
	keepaliveTimeout = 20 * time.Second
	keepaliveMinPing = 5 * time.Second
)

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxStreams == 0 {
		l.MaxStreams = d.MaxStreams
	}
	if l.MaxCalls == 0 {
		l.MaxCalls = d.MaxCalls
	}
	if l.IdleTimeout == 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxAge == 0 {
		l.MaxAge = d.MaxAge
	}
	if l.MaxAgeGrace == 0 {
		l.MaxAgeGrace = d.MaxAgeGrace
	}
	return l
}

// options are the grpc.ServerOptions that enforce l, counting calls in flight in calls.
func (l Limits) options(calls *callCount) []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.MaxConcurrentStreams(l.MaxStreams),
		grpc.InTapHandle(calls.admit),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle:     l.IdleTimeout,
			MaxConnectionAge:      l.MaxAge,
			MaxConnectionAgeGrace: l.MaxAgeGrace,
			Time:                  keepaliveTime,
			Timeout:               keepaliveTimeout,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveMinPing, PermitWithoutStream: true}),
	}, flowcontrol.ServerOptions()...)
}

// callCount is the number of calls a server holds, bounded by max.
type callCount struct {
	n   atomic.Int64
	max int64
}

// admit is the server's tap: it runs when a call's headers arrive (under the transport's lock,
// so it only counts), and counts the call until its stream ends, which cancels the context it
// is given on every path out of the transport.
func (c *callCount) admit(ctx context.Context, info *tap.Info) (context.Context, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, c.leave)
	return ctx, nil
}

// enter counts a call, or refuses it when the server holds max calls already.
func (c *callCount) enter() error {
	if c.n.Add(1) > c.max {
		c.n.Add(-1)
		return reason.Error(codes.ResourceExhausted, reason.Busy, fmt.Sprintf(
			"this node holds %d calls already, as many as it takes at once (--grpc-max-calls): retry in a moment, or on another node", c.max))
	}
	return nil
}

// leave stops counting a call enter counted.
func (c *callCount) leave() { c.n.Add(-1) }
