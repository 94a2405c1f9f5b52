package server

import (
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
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
		grpc.ChainStreamInterceptor(withReasonStream, refuseUndecodableStream, arrivedStream, s.intercept.leaderAccessStream, s.refuseFencedStream),
	}, append(s.cfg.Limits.options(s.internalCalls), s.cfg.Tracing.ServerOptions()...)...)
}

// RegisterInternal adds the services other nodes call to gi, the internal server: the public
// services' leader halves, under their leader names, for the calls a node relays to the
// leader (relay.go); Leader, the same leader halves for nodes on older builds; Forward
// for identity and issue batches and a node's own reservations; and health for Status's
// reachability probes. A relayed call runs only its leader half, never the public handler.
func (s *Server) RegisterInternal(gi *grpc.Server) {
	ids, cluster, series := s.ids.leader(), s.cluster.leader(), s.series.leader()
	registerLeaderHalves(gi, idnodev1.IdService_ServiceDesc, ids)
	registerLeaderHalves(gi, idnodev1.ClusterService_ServiceDesc, cluster)
	registerLeaderHalves(gi, idnodev1.SeriesService_ServiceDesc, series)
	forwardv1.RegisterLeaderServer(gi, leaderService{idLeader: ids, clusterLeader: cluster, seriesLeader: series})
	forwardv1.RegisterForwardServer(gi, forwardService{core: s.core, ids: s.ids, series: s.series})
	healthpb.RegisterHealthServer(gi, s.health)
}
