package server

import (
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
)

// Node-to-node calls — a follower forwarding a call or a batch of identities to the leader —
// arrive on the internal server, which cmd/idnode serves on the Raft port (cluster.Node.Internal,
// under the Raft port's mutual TLS when TLS is on) and never on the client port. See package
// forward for both ends of the hop.

// InternalServerOptions are the options the grpc.Server given to RegisterInternal must be
// created with. It takes no transport credentials: the Raft port's TLS is already done.
func (s *Server) InternalServerOptions() []grpc.ServerOption {
	arrivedUnary, arrivedStream := forward.Receiver(s.cfg.Tag, s.node.FSM().ClusterSecret)
	return append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(s.intercept.withFactsOnProbe, withReason, refuseUndecodable, arrivedUnary, s.intercept.leaderAccess, s.intercept.internalUnary),
		grpc.ForceServerCodecV2(newLenientCodec()),
		grpc.NumStreamWorkers(streamWorkers),
		grpc.ChainStreamInterceptor(withReasonStream, refuseUndecodableStream, arrivedStream, s.intercept.leaderAccessStream, s.intercept.authorizeStream),
	}, s.cfg.Limits.options(s.internalCalls)...)
}

// RegisterInternal adds the services other nodes call to gi, the internal server: Leader for
// the operations a node forwards to the leader, Forward for identity batches and a node's own
// reservations, and health for Status's reachability probes. The public services are not
// here: a forwarded call runs only its leader side.
func (s *Server) RegisterInternal(gi *grpc.Server) {
	forwardv1.RegisterLeaderServer(gi, leaderService{idLeader: s.ids.leader(), clusterLeader: s.cluster.leader(), seriesLeader: s.series.leader()})
	forwardv1.RegisterForwardServer(gi, forwardService{core: s.core, ids: s.ids, series: s.series})
	healthpb.RegisterHealthServer(gi, s.health)
}
