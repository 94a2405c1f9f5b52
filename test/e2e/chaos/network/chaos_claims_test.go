package network

// The claimers of schedule claims-leader-isolated; chaostest/chaos_claims.go has
// their load and checks.

import (
	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// claimsLeaderIsolated is leader-isolated with claimers in the load, from a load phase before
// the isolation to the one after recovery.
func claimsLeaderIsolated(r *chaostest.ChaosRun) {
	r.Load.StartClaims()
	r.Progress("before: claimers running", r.Tags(), true)
	leaderIsolated(r)
}
