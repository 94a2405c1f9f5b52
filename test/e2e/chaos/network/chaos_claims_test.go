package network

// The chaos suite's claims (issue 14): claimers compete for semantic IDs of the identity
// prefix the identity workers count, so identities must skip every value a claim won, through
// a leader's isolation; afterwards a lookup must find every claim as its claimer was told.

import (
	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// claimsLeaderIsolated is leader-isolated with claimers in the load, from a load phase before
// the isolation to the one after recovery.
func claimsLeaderIsolated(r *chaostest.ChaosRun) {
	r.Ld.StartClaims()
	r.Progress("before: claimers running", chaostest.ChaosTags(), true)
	leaderIsolated(r)
}
