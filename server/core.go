package server

import (
	"log/slog"
	"sync/atomic"

	"github.com/idnode/idnode/internal/forward"
)

// core is what every service of a node shares: the cluster handle and the way to its leader,
// how a call is resolved (its database, who the caller proved to be), and the bounds on what
// callers may hold at once. Each service type embeds it and holds its own state beside it, so
// a reader of one service's handlers sees that service's state and this, nothing more.
//
// The jobs the services share that need more than a line or two are small types of their own
// beside it, each over a narrow interface to what it needs of the node: the health probe of
// another node, the catch-up gate, the clock watch, the treatment of a leader on an older
// build, and this node's own membership.
type core struct {
	cfg  Config
	node Cluster
	fwd  *forward.Forwarder
	log  *slog.Logger
	// listings bounds the listings this node builds at once (listings.go).
	listings listingSlots
	adminSum atomic.Pointer[tokenSum] // auth.go
	// registered is set once the FSM holds this node's tag with this data dir's incarnation;
	// until then no server-side IDs (see datadir.NodeState). regProblem says why not yet.
	registered atomic.Bool
	regProblem atomic.Pointer[string]

	probes       healthProbe    // healthprobe.go
	catchUp      *catchUpGate   // catchup.go, startcatchup.go
	startCheck   *startCheck    // startcheck.go
	clock        *clockWatch    // clock.go
	olderLeaders olderLeaders   // relay.go
	self         selfMembership // joinstate.go
}

// newCore is the core of a node over node, reaching other nodes through fwd (nil in a test
// that reaches none).
func newCore(cfg Config, node Cluster, fwd *forward.Forwarder) *core {
	c := &core{cfg: cfg, node: node, fwd: fwd, log: cfg.Logger, listings: newListingSlots(maxListings)}
	c.probes = healthProbe{conns: fwd}
	c.catchUp = newCatchUpGate(node, c.probes, cfg.ElectionWait)
	c.startCheck = newStartCheck(cfg.State.Registered)
	c.clock = &clockWatch{node: node, probe: c.probes, tagOf: c.tagOf, tag: cfg.Tag, now: cfg.Now,
		every: cfg.ClockProbeInterval, warn: cfg.ClockOffsetWarn, log: cfg.Logger, observer: c.observer()}
	c.olderLeaders = olderLeaders{node: node, probe: c.probes, tagOf: c.tagOf}
	c.self = selfMembership{node: node, joined: cfg.Joined}
	return c
}
