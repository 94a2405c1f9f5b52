package metrics

import (
	"strings"
	"testing"

	"github.com/idnode/idnode/server"
)

// The Metrics are told the leader's replica checks: the Server finds the method by a type
// assertion, so this keeps its name and signature from drifting apart.
var _ interface{ ReplicaDigestMismatches(int) } = (*Metrics)(nil)

var _ server.Observer = (*Metrics)(nil)

// The gauge is 0 from the first scrape and then the last check's count.
func TestReplicaDigestMismatches(t *testing.T) {
	m := New()
	if body := scrape(t, m.Handler()); !strings.Contains(body, "idnode_replica_digest_mismatches 0") {
		t.Error("/metrics before any check lacks idnode_replica_digest_mismatches 0")
	}
	m.ReplicaDigestMismatches(1)
	if body := scrape(t, m.Handler()); !strings.Contains(body, "idnode_replica_digest_mismatches 1") {
		t.Error("/metrics after a check naming one member lacks idnode_replica_digest_mismatches 1")
	}
}
