package network

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// schedules cut the Raft network: the leader or a follower cut off (the leader once while
// claimers compete for IDs the identities must skip), and a 2/1 split.
var schedules = []chaostest.ChaosSchedule{
	{Name: "leader-isolated", Run: leaderIsolated},
	{Name: "claims-leader-isolated", Run: claimsLeaderIsolated}, // chaos_claims_test.go
	{Name: "follower-isolated", Run: func(r *chaostest.ChaosRun) {
		leader := r.Leader()
		follower := r.Others(leader)[0]
		rest := r.Others(follower)
		r.Docker.Disconnect(r.T, follower)
		r.Minority(follower)
		r.Progress("during: "+follower+" isolated, majority "+chaostest.JoinTags(rest), rest, true)
		r.Docker.Connect(r.T, follower)
	}},
	{Name: "split-2-1", Run: func(r *chaostest.ChaosRun) {
		// All three cut apart one after the other (no majority anywhere; each node is alone
		// from its own cut on), then the leader and one follower find each other again
		// while the third stays alone, then the split heals.
		leader := r.Leader()
		lone := r.Others(leader)[1]
		majority := r.Others(lone)
		var probes []func()
		for _, tag := range r.Tags() {
			r.Docker.Disconnect(r.T, tag)
			probes = append(probes, r.MinorityAsync(tag))
		}
		for _, wait := range probes {
			wait()
		}
		for _, tag := range majority {
			r.Docker.Connect(r.T, tag)
		}
		r.Minority(lone)
		r.Progress("during: split "+chaostest.JoinTags(majority)+" | "+lone, majority, true)
		r.Docker.Connect(r.T, lone)
	}},
}

// TestChaosNetwork runs the chaos suite (package chaostest) on schedules.
func TestChaosNetwork(t *testing.T) { chaostest.RunChaosSuite(t, chaostest.DeployCluster, schedules) }

// leaderIsolated cuts the leader off Raft and node-to-node gRPC (its clients still reach it),
// then reconnects it.
func leaderIsolated(r *chaostest.ChaosRun) {
	leader := r.Leader()
	rest := r.Others(leader)
	r.Docker.Disconnect(r.T, leader)
	r.Minority(leader)
	r.Progress("during: "+leader+" isolated, majority "+chaostest.JoinTags(rest), rest, true)
	r.Docker.Connect(r.T, leader)
}
