package server

import (
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// clusterService serves ClusterService: the cluster's members (status.go, membership.go),
// its databases and API keys, its version, and backup and restore. Each call that changes
// or reads the cluster's state runs its leader half (clusterLeader) on the leader.
type clusterService struct {
	idnodev1.UnimplementedClusterServiceServer
	*core
	// issued is what this node handed out, which Status reports; the server's observing
	// interceptor adds to it.
	issued *issuedTally
	// ids is the ID service, whose numeric minters and HiLo gaps Status reports.
	ids *idService
	// rates are the cluster's issue rates of the last hour, which a backup records.
	rates *issueRates
	// replicas compares the members' state digests while this node leads (replicacheck.go).
	replicas *replicaCheck
}

// clusterLeader is the leader's half of ClusterService's calls: one method per Leader RPC of
// the same name, which trusts the checks its public handler made where the call arrived.
type clusterLeader struct {
	idnodev1.UnsafeClusterServiceServer // a public call without its method here does not compile
	s                                   *clusterService
}

func (s *clusterService) leader() clusterLeader { return clusterLeader{s: s} }
