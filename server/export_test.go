package server

import (
	"context"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/identity"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// RelayIdentities commits incs as a follower's identity batcher does, so a test can hand the
// relay a batch of a size no timing could be relied on to form.
func RelayIdentities(ctx context.Context, s *Server, incs []*raftv1.IdentityIncrement) ([]identity.Result, error) {
	return forwardCommitter{s.ids}.Commit(ctx, incs)
}

// LeaderHalves makes the public calls of a generated client made on it go to the leader
// halves, as a follower relays them.
func LeaderHalves(cc grpc.ClientConnInterface) grpc.ClientConnInterface { return leaderConn{cc} }

// SampleIssueRates takes a sample of the cluster's issue rates now, as the node does every
// Config.IssueRatesInterval, so a test decides when the samples fall.
func SampleIssueRates(s *Server) { s.cluster.rates.sample() }
