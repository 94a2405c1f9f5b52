package server

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/client"
)

// leaderHint is a unary interceptor on the client port: every answer names the leader's gRPC
// address (as the leader registered it) in client.LeaderHeader, so a client sends the calls
// the leader serves straight there and spares them a follower's hop (issue 16). Clients that
// ignore it (grpcurl, other languages) are forwarded as before.
func (s *Server) leaderHint(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if id, _ := s.node.Leader(); id != "" {
		if n, ok := s.node.FSM().NodeByID(id); ok && n.GRPCAddress != "" {
			_ = grpc.SetHeader(ctx, metadata.Pairs(client.LeaderHeader, n.GRPCAddress))
		}
	}
	return handler(ctx, req)
}
