package server

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// leaderHint is a unary interceptor on the client port: every answer names the leader's gRPC
// address (as the leader registered it) in idnodev1.LeaderHeader, so a client sends the calls
// the leader serves straight there and spares them a follower's hop. Clients that
// ignore it (grpcurl, other languages) are forwarded as before. unary runs it as a step
// (intercept.go); on its own it is the step's unit under test.
func (s *interceptors) leaderHint(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	s.setLeaderHint(ctx)
	return handler(ctx, req)
}

// setLeaderHint is leaderHint's step: the call's answer names the leader.
func (s *interceptors) setLeaderHint(ctx context.Context) {
	if md := s.leaderHeader(); md != nil {
		_ = grpc.SetHeader(ctx, md)
	}
}

// leaderHeaderCache is the header naming one address: built once per leader address, not per
// call (metadata.Pairs allocates a map and lower-cases the key; SetHeader only reads it).
type leaderHeaderCache struct {
	addr string
	md   metadata.MD
}

// leaderHeader is the header naming the leader's gRPC address, nil while there is none.
func (s *interceptors) leaderHeader() metadata.MD {
	id, _ := s.node.Leader()
	if id == "" {
		return nil
	}
	n, ok := s.node.FSM().NodeByID(id)
	if !ok || n.GRPCAddress == "" {
		return nil
	}
	if c := s.leaderMD.Load(); c != nil && c.addr == n.GRPCAddress {
		return c.md
	}
	md := metadata.Pairs(idnodev1.LeaderHeader, n.GRPCAddress)
	s.leaderMD.Store(&leaderHeaderCache{addr: n.GRPCAddress, md: md})
	return md
}
