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
type core struct {
	cfg  Config
	node Cluster
	fwd  *forward.Forwarder
	log  *slog.Logger
	// listings bounds the listings this node builds at once (listings.go).
	listings listingSlots
	adminSum atomic.Pointer[tokenSum] // auth.go
	// commitProbe shares one question for the leader's commit index among the calls that
	// wait for this node to catch up (catchup.go).
	commitProbe sharedProbe
	// caughtUpOnce is set once this node's FSM has held what the leader had committed, after
	// its start (health.go); until then calls a key guards are refused (startcatchup.go).
	caughtUpOnce atomic.Bool
	// registered is set once the FSM holds this node's tag with this data dir's incarnation;
	// until then no server-side IDs (see datadir.NodeState). regProblem says why not yet.
	registered atomic.Bool
	regProblem atomic.Pointer[string]
	// clock is this node's clock against the leader's (clock.go).
	clock clockWatch
}
