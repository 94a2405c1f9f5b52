package server

import (
	"context"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/forward"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// viaIDs adapts an IdService client method for forward.Call.
func viaIDs[Req, Resp any](m func(idnodev1.IdServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return func(cc *grpc.ClientConn, ctx context.Context, r Req, opts ...grpc.CallOption) (Resp, error) {
		return m(idnodev1.NewIdServiceClient(cc), ctx, r, opts...)
	}
}

// viaCluster adapts a ClusterService client method for forward.Call.
func viaCluster[Req, Resp any](m func(idnodev1.ClusterServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return func(cc *grpc.ClientConn, ctx context.Context, r Req, opts ...grpc.CallOption) (Resp, error) {
		return m(idnodev1.NewClusterServiceClient(cc), ctx, r, opts...)
	}
}

// newForwarder is this server's way to the leader. Every refusal on the way is "no quorum".
func (s *Server) newForwarder() *forward.Forwarder {
	return forward.New(forward.Config{
		Cluster:      s.node,
		Dial:         s.cfg.Dial,
		TLS:          s.cfg.PeerTLS,
		ElectionWait: s.cfg.ElectionWait,
		Refuse:       s.noQuorum,
		PassOn:       []string{authorizationHeader},
		Secret:       s.node.FSM().ClusterSecret,
	})
}
