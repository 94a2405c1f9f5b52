package server

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// secretCheckInterval is how often a node without a cluster secret looks again, and, when it
// leads, proposes one.
const secretCheckInterval = 250 * time.Millisecond

// ensureClusterSecret has the leader set the cluster secret (package forward) when the FSM has
// none: once, right after a new cluster's first election, or after an upgrade from a version
// without one. It returns once the FSM has a secret: it is never changed.
func (s *Server) ensureClusterSecret(ctx context.Context) {
	t := time.NewTicker(secretCheckInterval)
	defer t.Stop()
	for s.node.FSM().ClusterSecret() == nil {
		if s.node.IsLeader() {
			secret := make([]byte, 32)
			_, _ = rand.Read(secret) // crypto/rand.Read never fails
			if _, err := propose(ctx, s.core, fsm.ProposeSetClusterSecret, &raftv1.SetClusterSecret{Secret: secret}); err != nil {
				s.log.Debug("setting the cluster secret failed; retrying", "err", err)
			} else {
				s.log.Info("cluster secret set: node-to-node calls now need it")
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
