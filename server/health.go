package server

import (
	"context"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Health service names. "" and IdService are SERVING only when every strategy works. The
// local strategies (semantic, GUID, server-side) are SERVING once the node is registered and
// stay so without a quorum; the Raft-backed ones (identities, HiLo) go NOT_SERVING then.
const (
	HealthIdService = "idnode.v1.IdService"
	HealthLocal     = "idnode.v1.IdService/local"
	HealthConsensus = "idnode.v1.IdService/consensus"
)

const healthInterval = 100 * time.Millisecond

// watchHealth keeps the health statuses in step with this node's view of the leader. Nothing
// is SERVING before the node has caught up once and its start-up replica check agreed
// (startcheck.go), nor while the cluster has fenced it (fence.go).
func (s *Server) watchHealth(ctx context.Context) {
	t := time.NewTicker(healthInterval)
	defer t.Stop()
	var catchUpTarget uint64 // the leader's commit index once asked (catchUpGate.caughtUpSince)
	for {
		_, fenced := s.fenced()
		serves := !fenced && s.catchUp.caughtUpSince(ctx, &catchUpTarget) && s.startCheck.agreed()
		local, consensus := serves && s.registered.Load(), serves && s.hasLeader()
		s.health.SetServingStatus(HealthLocal, servingStatus(local))
		s.health.SetServingStatus(HealthConsensus, servingStatus(consensus))
		s.health.SetServingStatus("", servingStatus(local && consensus))
		s.health.SetServingStatus(HealthIdService, servingStatus(local && consensus))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// hasLeader reports whether Raft work can be expected to succeed: this node can write its
// log, a leader is known, and if it is this node, raft still considers it the leader (it steps
// down without a quorum).
func (s *Server) hasLeader() bool {
	if s.node.StorageFault() != nil {
		return false
	}
	leader, _ := s.node.Leader()
	state := s.node.State()
	return leader != "" && (state == "leader" || state == "follower")
}

func servingStatus(ok bool) healthpb.HealthCheckResponse_ServingStatus {
	if ok {
		return healthpb.HealthCheckResponse_SERVING
	}
	return healthpb.HealthCheckResponse_NOT_SERVING
}
