package forward

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// The receiving end. Forwarded calls arrive on the internal server, which cmd/idnode serves on
// the Raft port (cluster.Node.Internal) and never on the client port. A call that arrived
// there was forwarded once already: the node serves it itself or refuses it and never
// forwards it again, so calls cannot bounce between nodes during an election. Clients cannot
// mark a call as forwarded: the mark is where the call arrived, not anything it carries.

// arrivedKey marks the context of a call that arrived on the internal server; its value says
// whether the call carried the cluster secret this node knows.
type arrivedKey struct{}

// Arrived reports whether another node forwarded this call here.
func Arrived(ctx context.Context) bool {
	return ctx.Value(arrivedKey{}) != nil
}

// FromNode reports whether the call came from a node of this cluster: it arrived on the
// internal server carrying the cluster secret. The node that forwarded it checked its caller.
func FromNode(ctx context.Context) bool {
	verified, _ := ctx.Value(arrivedKey{}).(bool)
	return verified
}

// answeredByTrailer is set on every answer to a forwarded call, so the forwarding node can tell
// the leader's own errors from a failure on the way to it.
const answeredByTrailer = "x-idnode-answered-by"

// Receiver returns the interceptors the internal server runs first (after any that attach
// reasons to errors): they refuse a call without the cluster secret, and mark each call as
// arrived and its answer as answered by tag.
func Receiver(tag string, secret Secret) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	answered := metadata.Pairs(answeredByTrailer, tag)
	unary := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		_ = grpc.SetTrailer(ctx, answered)
		verified, err := secret.check(ctx)
		if err != nil {
			return nil, err
		}
		return handler(context.WithValue(ctx, arrivedKey{}, verified), req)
	}
	stream := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ss.SetTrailer(answered)
		verified, err := secret.check(ss.Context())
		if err != nil {
			return err
		}
		return handler(srv, arrivedStream{ss, verified})
	}
	return unary, stream
}

type arrivedStream struct {
	grpc.ServerStream
	verified bool
}

func (s arrivedStream) Context() context.Context {
	return context.WithValue(s.ServerStream.Context(), arrivedKey{}, s.verified)
}
