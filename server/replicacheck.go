package server

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// The replica check (docs/replica-checks.md): the leader proposes a digest mark, asks every
// member for its digest at the mark through the health probe, and compares them. Every
// correct replica holds the same digest at a mark, so a member whose digest differs from the
// majority's holds a state that diverged.

// DefaultReplicaCheckInterval is how often the leader compares the members' digests when
// Config.ReplicaCheckInterval is 0; MinReplicaCheckInterval is the shortest a node accepts.
const (
	DefaultReplicaCheckInterval = time.Minute
	MinReplicaCheckInterval     = 5 * time.Second
)

// Headers of the digest probe: the mark asked for, and the member's answer, a hex digest, or
// digestNone when it holds no digest of that mark, with the checksums of the digest's parts
// (digestparts.go).
const (
	digestMarkHeader  = "idnode-digest-mark"
	digestHeader      = "idnode-digest"
	digestPartsHeader = "idnode-digest-parts"
	digestNone        = "none"
)

// digestProbeTimeout bounds one member's answer: the member may still be hashing its state.
const digestProbeTimeout = 5 * time.Second

// Verdicts on a member's digest.
const (
	verdictAgrees       = "agrees"
	verdictDiffers      = "differs"
	verdictNotReporting = "not reporting"
)

// replicaObserver is told how many members differ after each comparison (metrics.Metrics is
// one); an Observer that is not one is told nothing.
type replicaObserver interface {
	ReplicaDigestMismatches(n int)
}

// replicaCheck marks and compares on the leader, and keeps the last comparison for Status.
type replicaCheck struct {
	core  *core
	every time.Duration
	// checking lets one comparison run at a time: the cadence's and an operator's.
	checking sync.Mutex
	mu       sync.Mutex
	last     *idnodev1.ReplicaCheck
}

// run compares every interval while this node leads, until ctx ends. A node that no longer
// leads drops its last comparison, so its gauge does not keep an alert firing that the new
// leader's checks have cleared.
func (c *replicaCheck) run(ctx context.Context) {
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !c.core.node.IsLeader() {
				c.forget()
				continue
			}
			if _, err := c.check(ctx); err != nil {
				c.core.log.Debug("replica check skipped", "err", err)
			}
		}
	}
}

// forget drops the last comparison, once this node no longer leads.
func (c *replicaCheck) forget() {
	c.mu.Lock()
	had := c.last != nil
	c.last = nil
	c.mu.Unlock()
	if o, ok := c.core.observer().(replicaObserver); ok && had {
		o.ReplicaDigestMismatches(0)
	}
}

// Last is the last comparison this node made, nil before the first.
func (c *replicaCheck) Last() *idnodev1.ReplicaCheck {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// check proposes a mark, collects every member's digest at it, and records the comparison. A
// cluster not finalised at fsm.DigestMarkVersion is refused: a member on an older build skips
// the mark and would only ever be "not reporting".
func (c *replicaCheck) check(ctx context.Context) (*idnodev1.ReplicaCheck, error) {
	c.checking.Lock()
	defer c.checking.Unlock()
	if v := c.core.node.FSM().FinalisedVersion(); v < fsm.DigestMarkVersion {
		return nil, status.Errorf(codes.FailedPrecondition, "replica checks need cluster version %d, the cluster is finalised at %d (docs/upgrades.md)", fsm.DigestMarkVersion, v)
	}
	index, err := propose(ctx, c.core, fsm.ProposeDigestMark, &raftv1.DigestMark{ProposedAtMs: c.core.cfg.Now().UnixMilli()})
	if err != nil {
		return nil, err
	}
	out := &idnodev1.ReplicaCheck{Index: index, AtMs: c.core.cfg.Now().UnixMilli()}
	members := c.core.node.Members()
	parts := make(map[*idnodev1.ReplicaDigest]fsm.DigestParts, len(members))
	for _, m := range members {
		d := &idnodev1.ReplicaDigest{Tag: c.core.tagOf(m.ID)}
		var p fsm.DigestParts
		if m.ID == c.core.node.ID() {
			d.Digest, p, d.Detail = ownDigest(c.core.node.FSM(), index)
		} else {
			d.Digest, p, d.Detail = c.memberDigest(ctx, m.Address, index)
		}
		parts[d] = p
		out.Members = append(out.Members, d)
	}
	c.judge(out, parts)
	c.fenceDiverged(ctx, out, members)
	c.mu.Lock()
	c.last = out
	c.mu.Unlock()
	if o, ok := c.core.observer().(replicaObserver); ok {
		o.ReplicaDigestMismatches(int(out.Mismatches))
	}
	return out, nil
}

// judge gives each member its verdict: against the digest more than half the members hold,
// or, without one, against the leader's own. A member that differs is told in what parts of
// the state, where it and a member holding the reference digest reported their parts.
func (c *replicaCheck) judge(out *idnodev1.ReplicaCheck, parts map[*idnodev1.ReplicaDigest]fsm.DigestParts) {
	counts := map[string]int{}
	var own []byte
	for _, d := range out.Members {
		if len(d.Digest) > 0 {
			counts[string(d.Digest)]++
		}
		if d.Tag == c.core.cfg.Tag {
			own = d.Digest
		}
	}
	reference := own
	for digest, n := range counts {
		if 2*n > len(out.Members) {
			out.MajorityDigest = []byte(digest)
			reference = out.MajorityDigest
		}
	}
	for _, d := range out.Members {
		switch {
		case len(d.Digest) == 0:
			d.Verdict = verdictNotReporting
		case string(d.Digest) == string(reference):
			d.Verdict = verdictAgrees
		default:
			d.Verdict = verdictDiffers
			out.Mismatches++
			differing := differingParts(out, parts, d, reference)
			if len(differing) > 0 {
				d.Detail = "differs in " + strings.Join(differing, ", ")
			}
			c.core.log.Error("a replica's state digest differs", "member", d.Tag, "index", out.Index,
				"digest", hex.EncodeToString(d.Digest), "expected", hex.EncodeToString(reference), "majority", len(out.MajorityDigest) > 0,
				"parts", differing)
		}
	}
}

// differingParts names the parts in which member d differs from a member holding the
// reference digest, or nothing where neither reported its parts (a build from before them).
func differingParts(out *idnodev1.ReplicaCheck, parts map[*idnodev1.ReplicaDigest]fsm.DigestParts, d *idnodev1.ReplicaDigest, reference []byte) []string {
	if parts[d] == nil {
		return nil
	}
	for _, m := range out.Members {
		if string(m.Digest) == string(reference) && parts[m] != nil {
			return parts[d].Differing(parts[m])
		}
	}
	return nil
}

// ownDigest is this node's digest at the mark of index and its parts, or why there is none.
func ownDigest(f *fsm.FSM, index uint64) ([]byte, fsm.DigestParts, string) {
	m, ok := fsm.DigestAt(f, index)
	switch {
	case !ok:
		return nil, nil, fmt.Sprintf("holds no mark at index %d", index)
	case m.Err != nil:
		return nil, nil, m.Err.Error()
	}
	return m.Digest, m.Parts, ""
}

// memberDigest asks the member at addr (its Raft address) for its digest at the mark of
// index and its parts, through the health probe, or says why it has none. Parts that do not
// parse are none: they only ever explain a digest.
func (c *replicaCheck) memberDigest(ctx context.Context, addr string, index uint64) ([]byte, fsm.DigestParts, string) {
	cc, err := c.core.probes.conns.Conn(addr)
	if err != nil {
		return nil, nil, err.Error()
	}
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(ctx, digestMarkHeader, strconv.FormatUint(index, 10)), digestProbeTimeout)
	defer cancel()
	var header metadata.MD
	if _, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: HealthLocal}, grpc.Header(&header)); err != nil && len(header) == 0 {
		return nil, nil, "no answer: " + status.Convert(err).Message()
	}
	v := header.Get(digestHeader)
	switch {
	case len(v) == 0:
		return nil, nil, "its build reports no digest"
	case v[0] == digestNone:
		return nil, nil, fmt.Sprintf("holds no mark at index %d yet", index)
	}
	digest, err := hex.DecodeString(v[0])
	if err != nil || len(digest) != fsm.DigestLen {
		return nil, nil, fmt.Sprintf("answered a malformed digest %q", v[0])
	}
	var parts fsm.DigestParts
	if p := header.Get(digestPartsHeader); len(p) > 0 {
		parts, _ = parseDigestParts(p[0])
	}
	return digest, parts, ""
}

// digestAnswer is the headers a probed node answers a digest probe with, none when the probe
// asks for no digest: its digest at the mark the probe names and its parts, waiting until it
// has applied the mark (within the probe's deadline).
func digestAnswer(ctx context.Context, f *fsm.FSM, applied func(context.Context, uint64) bool) metadata.MD {
	md, _ := metadata.FromIncomingContext(ctx)
	v := md.Get(digestMarkHeader)
	if len(v) == 0 {
		return nil
	}
	none := metadata.Pairs(digestHeader, digestNone)
	index, err := strconv.ParseUint(v[0], 10, 64)
	if err != nil || !applied(ctx, index) {
		return none
	}
	m, ok := fsm.DigestAt(f, index)
	if !ok || m.Err != nil {
		return none
	}
	return metadata.Pairs(digestHeader, hex.EncodeToString(m.Digest), digestPartsHeader, formatDigestParts(m.Parts))
}

// checkReplicasHop is how a check asked of a follower (an operator's, a start-up check's)
// travels to the leader: bounded by the caller's deadline and a change of leader, not by
// forward.Unary's 1.5 s, since the leader answers only once it has heard every member, each
// within digestProbeTimeout (5 s), one after another, and after any comparison already under
// way. With forward.Unary a check asked of a follower failed with "no quorum" whenever a
// member was slow to report.
var checkReplicasHop = forward.Limits{WatchLeader: true}

// CheckReplicas has the leader mark and compare now.
func (s *clusterService) CheckReplicas(ctx context.Context, req *idnodev1.CheckReplicasRequest) (*idnodev1.ReplicaCheck, error) {
	return forward.Call(s.fwd, ctx, req, checkReplicasHop, s.leader().CheckReplicas, viaCluster(s.core, idnodev1.ClusterServiceClient.CheckReplicas, nil))
}

// CheckReplicas runs on the leader.
func (l clusterLeader) CheckReplicas(ctx context.Context, _ *idnodev1.CheckReplicasRequest) (*idnodev1.ReplicaCheck, error) {
	out, err := l.s.replicas.check(ctx)
	if err == nil {
		l.s.log.Log(ctx, slog.LevelInfo, "replicas checked", "index", out.Index, "mismatches", out.Mismatches)
	}
	return out, err
}
