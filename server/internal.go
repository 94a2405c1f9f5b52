package server

import (
	"context"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	relayv1 "github.com/idnode/idnode/proto/idnode/relay/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Node-to-node calls — a follower relaying a call or a batch of identities to the leader —
// arrive on the internal server, which cmd/idnode serves on the Raft port (cluster.Node.Internal,
// under the Raft port's mutual TLS when TLS is on) and never on the client port. A call that
// arrived there was relayed once already: the node serves it itself or refuses it, and never
// relays it again, so calls cannot bounce between nodes during an election. Clients cannot
// mark a call as relayed: the mark is where the call arrived, not anything it carries.

// internalKey marks the context of a call that arrived on the internal server.
type internalKey struct{}

// relayed reports whether another node relayed this call.
func relayed(ctx context.Context) bool {
	return ctx.Value(internalKey{}) != nil
}

// InternalServerOptions are the options the grpc.Server given to RegisterInternal must be
// created with. It takes no transport credentials: the Raft port's TLS is already done.
func (s *Server) InternalServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(withReason, markInternal, s.answerTrailer, s.authorize, s.observe, s.checkUTF8),
		grpc.ForceServerCodecV2(newLenientCodec()),
		grpc.NumStreamWorkers(streamWorkers),
		grpc.ChainStreamInterceptor(withReasonStream, markInternalStream, s.authorizeStream),
	}
}

// RegisterInternal adds the services other nodes call to gi, the internal server: IdService
// and ClusterService for relayed calls, Relay for identity batches, and health for Status's
// reachability probes.
func (s *Server) RegisterInternal(gi *grpc.Server) {
	idnodev1.RegisterIdServiceServer(gi, s)
	idnodev1.RegisterClusterServiceServer(gi, s)
	relayv1.RegisterRelayServer(gi, relayService{s: s})
	healthpb.RegisterHealthServer(gi, s.health)
}

func markInternal(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	return handler(context.WithValue(ctx, internalKey{}, true), req)
}

func markInternalStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, internalStream{ss})
}

type internalStream struct{ grpc.ServerStream }

func (s internalStream) Context() context.Context {
	return context.WithValue(s.ServerStream.Context(), internalKey{}, true)
}

// answeredByTrailer is set on every answer to a relayed call, so the relaying node can tell the
// leader's own errors from a transport failure on the way to it.
const answeredByTrailer = "x-idnode-answered-by"

// answerTrailer is a unary interceptor of the internal server that marks every answer with
// this node's tag.
func (s *Server) answerTrailer(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	_ = grpc.SetTrailer(ctx, metadata.Pairs(answeredByTrailer, s.cfg.Tag))
	return handler(ctx, req)
}
