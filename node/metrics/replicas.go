package metrics

import "github.com/prometheus/client_golang/prometheus"

// newReplicaMismatches is the gauge of the members whose state digest differed at the leader's
// last replica check (server/replicacheck.go). Only the leader compares, so only the leader's
// gauge moves; it stays 0 elsewhere, which a max() over the nodes reads right.
func newReplicaMismatches(reg prometheus.Registerer) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "idnode_replica_digest_mismatches",
		Help: "Members whose state digest differed from the majority's at the last digest mark this node compared as leader (docs/replica-checks.md); " +
			"any above 0 holds a state that diverged from the others'.",
	})
	reg.MustRegister(g)
	return g
}

// ReplicaDigestMismatches sets idnode_replica_digest_mismatches.
func (m *Metrics) ReplicaDigestMismatches(n int) { m.replicaMismatches.Set(float64(n)) }
