package server

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// The start-up check (docs/replica-checks.md, "At start"): a node restarted on a data dir it
// held before compares its state with the cluster's before it serves the calls that depend on
// that state. Once it has caught up, it has the leader run a replica check, the comparison the
// leader's cadence makes, and holds its own digest at the check's mark against the one a
// majority of the members holds. A node restarted on a damaged or foreign data dir is caught
// there, before its first answer; the refusals of data dirs that cannot be read at all happen
// earlier, at the start, and stay as they are.

// Bounds of the start-up check's attempts. An attempt that cannot decide (no leader, no
// majority digest, this node not reporting in time) is made again after a pause that doubles
// up to startCheckMaxPause; each attempt is one digest mark in the log.
const (
	startCheckFirstPause = 100 * time.Millisecond
	startCheckMaxPause   = 10 * time.Second
	// startCheckTimeout bounds one attempt: the leader waits up to digestProbeTimeout for each
	// member's digest, one member after another.
	startCheckTimeout = 30 * time.Second
)

// errStartCheckUndecided is why an attempt did not decide; the next one may.
var errStartCheckUndecided = errors.New("the start-up replica check could not decide")

// The start-up check's outcomes.
const (
	startPending int32 = iota
	startAgreed
	startDiverged
)

// startCheck is the start-up check's outcome, which the calls that depend on the node's state
// wait for (admit).
type startCheck struct {
	outcome atomic.Int32
	decided chan struct{} // closed once outcome is startAgreed or startDiverged
	once    sync.Once
}

// newStartCheck is the check of a node whose data dir says whether it was registered before
// this start. One that was not holds no state of its own: it joins, or forms a new cluster,
// and what it holds comes from the leader's log and snapshot, whose digest is checked on
// restore, so its check agrees from the start.
func newStartCheck(registered bool) *startCheck {
	c := &startCheck{decided: make(chan struct{})}
	if !registered {
		c.decide(startAgreed)
	}
	return c
}

// decide records the outcome; only the first counts.
func (c *startCheck) decide(outcome int32) {
	c.once.Do(func() {
		c.outcome.Store(outcome)
		close(c.decided)
	})
}

// agreed reports whether the check has found this node's state to be the cluster's (or had
// nothing to compare).
func (c *startCheck) agreed() bool { return c.outcome.Load() == startAgreed }

// admit lets a call through once the check agreed, waiting for it within ctx. A call is
// refused UNAVAILABLE while the check has not decided (NOT_CAUGHT_UP: it is the last step of
// catching up since the start) and once it found this node's state diverged (REPLICA_DIVERGED).
func (c *startCheck) admit(ctx context.Context) error {
	select {
	case <-c.decided: // decided: never refused for a wait that ended at the same time
	default:
		if err := c.await(ctx); err != nil {
			return err
		}
	}
	if c.outcome.Load() == startDiverged {
		return reason.Error(codes.Unavailable, reason.ReplicaDiverged,
			"this node's state differs from the one a majority of the cluster holds at the same log index: it was restarted on a damaged "+
				"or foreign data dir, and refuses calls that depend on that state. Use another node; replace this node's data dir (docs/replica-checks.md)")
	}
	return nil
}

// await waits for the check to decide, within ctx.
func (c *startCheck) await(ctx context.Context) error {
	select {
	case <-c.decided:
		return nil
	case <-ctx.Done():
		return reason.Error(codes.Unavailable, reason.NotCaughtUp,
			"this node has not yet compared its state with the cluster's since it started (docs/replica-checks.md, \"At start\"); "+
				"it refuses calls that depend on that state until it has (a leader must be reachable). Use another node, or retry")
	}
}

// checkAtStart runs the start-up check until it decides or ctx ends.
func (s *Server) checkAtStart(ctx context.Context) {
	if s.startCheck.agreed() {
		return
	}
	pause := startCheckFirstPause
	var catchUpTarget uint64 // the leader's commit index once asked (catchUpGate.caughtUpSince)
	for {
		err := s.compareAtStart(ctx, &catchUpTarget)
		if err == nil {
			return
		}
		if pause == startCheckMaxPause {
			s.log.Warn("the start-up replica check has not decided yet; this node refuses calls that depend on its state meanwhile", "err", err)
		} else {
			s.log.Debug("start-up replica check not decided yet", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, startCheckMaxPause)
	}
}

// compareAtStart makes one attempt, which decides (nil) or says why it did not. catchUpTarget
// is kept from one attempt to the next (catchUpGate.caughtUpSince).
func (s *Server) compareAtStart(ctx context.Context, catchUpTarget *uint64) error {
	c := s.startCheck
	if !s.catchUp.caughtUpSince(ctx, catchUpTarget) {
		return fmt.Errorf("%w: this node has not caught up with a leader yet", errStartCheckUndecided)
	}
	f := s.node.FSM()
	if v := f.FinalisedVersion(); v < fsm.DigestMarkVersion {
		s.log.Info("start-up replica check skipped: the cluster's members do not all take digest marks yet",
			"cluster_version", v, "needs", fsm.DigestMarkVersion)
		c.decide(startAgreed)
		return nil
	}
	if len(s.node.Members()) == 1 {
		s.log.Info("start-up replica check skipped: this node is the cluster's only member, with no state to compare its own with")
		c.decide(startAgreed)
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, startCheckTimeout)
	defer cancel()
	rc, err := forward.Call(s.fwd, ctx, &idnodev1.CheckReplicasRequest{}, checkReplicasHop, s.cluster.leader().CheckReplicas,
		viaCluster(s.core, idnodev1.ClusterServiceClient.CheckReplicas, nil))
	if status.Code(err) == codes.FailedPrecondition {
		s.log.Info("start-up replica check skipped: the leader does not compare replicas", "err", err)
		c.decide(startAgreed)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errStartCheckUndecided, err)
	}
	own, _, detail := ownDigest(f, rc.GetIndex())
	majority := rc.GetMajorityDigest()
	switch {
	case own == nil:
		return fmt.Errorf("%w: this node %s", errStartCheckUndecided, detail)
	case len(majority) == 0:
		return fmt.Errorf("%w: no digest at mark %d is held by a majority of the members", errStartCheckUndecided, rc.GetIndex())
	case bytes.Equal(own, majority):
		s.log.Info("start-up replica check: this node's state is the cluster's", "index", rc.GetIndex())
		c.decide(startAgreed)
	default:
		s.log.Error("this node's state digest differs from the cluster's at start: it refuses calls that depend on its state",
			"index", rc.GetIndex(), "digest", hex.EncodeToString(own), "majority", hex.EncodeToString(majority), "leader", leaderDetail(rc, s.cfg.Tag))
		c.decide(startDiverged)
	}
	return nil
}

// leaderDetail is what the leader's comparison says of member tag (in what parts it
// differs), or "" when it says nothing.
func leaderDetail(rc *idnodev1.ReplicaCheck, tag string) string {
	for _, m := range rc.GetMembers() {
		if m.GetTag() == tag {
			return m.GetDetail()
		}
	}
	return ""
}
