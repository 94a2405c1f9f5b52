// Package forward is the one way a call reaches the leader from a node that does not lead: a
// unary call, a follower's batch of identity increments or a stream takes a Hop over the node's
// connection to the leader's internal server (on its Raft port), and comes back with the
// leader's answer or with one refusal, made by one translator (Hop.Error). The receiving end
// (Receiver, Arrived) is here too, so both halves of the hop agree on its marks.
package forward

import (
	"context"
	"crypto/tls"
	"errors"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

var (
	// ErrNoLeader means no leader is known, and none became known within the election wait.
	ErrNoLeader = errors.New("no leader is known")
	// ErrLeaderChanged means the leader changed, or could not be reached in time, while the
	// call was on its way to it. Whether the leader acted on the call is unknown.
	ErrLeaderChanged = errors.New("the leader changed or became unreachable while the call was forwarded to it")
	// ErrUnreached means the call never left this node for the leader (there was no
	// connection to it). Nothing was done.
	ErrUnreached = errors.New("the call could not be sent to the leader")
	// ErrNoAnswer means the call was sent to the leader, but no answer came back. It wraps
	// the reason, ErrLeaderChanged or the transport's error. The leader may have acted on it.
	ErrNoAnswer = errors.New("the leader did not answer a call it may have acted on")
	// ErrBehind means the leader refused the call because this node does not know the
	// cluster secret yet: it has not caught up with the log. Nothing was done.
	ErrBehind = errors.New("this node has not caught up with the cluster's log yet")
	// ErrSelf means this node won the election the call waited for; serve the call here.
	ErrSelf = errors.New("this node is the leader")
	// ErrClosed means the forwarder was closed: the node is shutting down, and a call that
	// outlived it gets no new connection to another node.
	ErrClosed = errors.New("the node is shutting down")
)

// Cluster is what forwarding needs of the node's Raft side (cluster.Node is one).
type Cluster interface {
	ID() string
	IsLeader() bool
	Leader() (id, address string)
	// AwaitHandOver waits while this node hands leadership over to another, or until ctx ends
	// (cluster.Node.AwaitHandOver).
	AwaitHandOver(ctx context.Context)
}

// DefaultElectionWait is four election timeouts of cluster.DefaultTiming: long enough for an
// election whose first pre-vote was refused (the other survivor still had a leader) to finish
// on a later round, short enough that a node cut off in a minority refuses within about
// two seconds, not after its caller's deadline.
const DefaultElectionWait = time.Second

// pollInterval is how often a waiting or forwarded call looks at who leads.
const pollInterval = 25 * time.Millisecond

// Config is a Forwarder's collaborators and settings.
type Config struct {
	Cluster Cluster
	// Dial connects to other nodes; nil means plain TCP.
	Dial Dialer
	// TLS, when set, is the mutual TLS of the Raft port (tlsconfig.Node.Peer).
	TLS *tls.Config
	// ElectionWait bounds how long a node without a leader makes calls wait for one, counted
	// from when it last knew one (0: the default). A call that arrives later is refused at
	// once: an election that takes longer is not under way but failing, as in a minority. A
	// node that has never known a leader counts from its start, and twice as long: its first
	// election starts only after a heartbeat timeout. It is also how long a connection to
	// another node may stay silent when it should answer before it is replaced (link.go).
	ElectionWait time.Duration
	// Refuse turns why a call could not reach the leader (ErrNoLeader, ErrLeaderChanged, a
	// transport error) into the error its caller gets.
	Refuse func(error) error
	// PassOn names the incoming metadata a hop carries to the leader (the caller's token),
	// which gRPC does not pass on by itself.
	PassOn []string
	// Secret is the cluster secret every call to another node carries (secret.go).
	Secret Secret
	// Now is the clock of the election wait; nil means time.Now.
	Now func() time.Time
	// DialOptions are added to every connection to another node (tracing's instrumentation).
	DialOptions []grpc.DialOption
	// NothingDone reports whether a refusal says the call was not acted on (the server's "no
	// quorum"), so that it may be taken to another leader; nil means never. A call refused so
	// by a leader that has handed leadership over goes to the new one (HandOff, Do).
	NothingDone func(error) bool
}

// Forwarder takes calls to the leader. It is safe for concurrent use.
type Forwarder struct {
	cfg   Config
	conns *conns
	// leaderAt is when this node last knew a leader (UnixNano; New's time before it ever has),
	// kept by track; sawLeader says whether it ever has.
	leaderAt  atomic.Int64
	sawLeader atomic.Bool
	stop      chan struct{}
	stopped   chan struct{}
}

// New returns a Forwarder; Close stops it.
func New(cfg Config) *Forwarder {
	if cfg.ElectionWait <= 0 {
		cfg.ElectionWait = DefaultElectionWait
	}
	if cfg.Refuse == nil {
		cfg.Refuse = func(err error) error { return err }
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NothingDone == nil {
		cfg.NothingDone = func(error) bool { return false }
	}
	f := &Forwarder{cfg: cfg, conns: newConns(cfg.Dial, cfg.TLS, cfg.Secret, cfg.DialOptions, cfg.ElectionWait), stop: make(chan struct{}), stopped: make(chan struct{})}
	f.leaderAt.Store(cfg.Now().UnixNano())
	go f.track()
	return f
}

// Close stops the forwarder and closes its connections to other nodes.
func (f *Forwarder) Close() {
	close(f.stop)
	<-f.stopped
	f.conns.close()
}

// track notes, every pollInterval, whether this node knows a leader, so that a call that finds
// none knows how long the node has been without one. When it learns a leader, after none or
// another, the node has just heard from it, and a connection to it that gRPC is redialling
// dials again at once (revive.go).
func (f *Forwarder) track() {
	defer close(f.stopped)
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	var known string // the address of the leader at the last look, "" if none
	for {
		id, addr := f.cfg.Cluster.Leader()
		if id == "" {
			addr = ""
		} else {
			f.knowsLeader()
		}
		if addr != known && addr != "" {
			f.conns.revive(addr)
		}
		known = addr
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
	}
}

func (f *Forwarder) knowsLeader() {
	f.leaderAt.Store(f.cfg.Now().UnixNano())
	f.sawLeader.Store(true)
}

// Conn is the connection to the internal server at addr, for node-to-node calls that are not
// hops to the leader (Status's reachability probes).
func (f *Forwarder) Conn(addr string) (*grpc.ClientConn, error) { return f.conns.conn(addr) }

// Local reports whether a call is this node's to serve: it leads, or the call was forwarded
// here already (then it is served or refused here, never forwarded again).
func (f *Forwarder) Local(ctx context.Context) bool {
	return f.cfg.Cluster.IsLeader() || Arrived(ctx)
}

// Limits bound a hop besides its caller's deadline.
type Limits struct {
	// Bound, when set, ends the hop after this long with ErrLeaderChanged, on a cluster with
	// the default election wait; a cluster whose election wait is longer (its nodes are told
	// of longer round trips, cluster.TimingForRoundTrip) stretches it in proportion (Open).
	Bound time.Duration
	// WatchLeader ends the hop with ErrLeaderChanged soon after this node sees another leader
	// or none (watch): the caller then hears "no quorum" now rather than at its deadline.
	// Wrong only for a call that changes the leader itself.
	WatchLeader bool
}

var (
	// Unary is how a unary call or an identity batch travels: within one and a half election
	// waits, so that a node cut off from a leader it still believes in refuses its caller in
	// time for the caller to try another node.
	Unary = Limits{Bound: 1500 * time.Millisecond, WatchLeader: true}
	// Stream is how a backup or restore travels: as long as its caller allows.
	Stream = Limits{WatchLeader: true}
)

// Open starts a hop to the leader, waiting for an election under way (see Config.ElectionWait).
// Its errors are the caller's (Refuse's, or the caller's own cancel or deadline), except
// ErrSelf. The hop must be closed.
func (f *Forwarder) Open(ctx context.Context, lim Limits) (*Hop, error) {
	id, addr := f.leader(ctx)
	switch {
	case ctx.Err() != nil:
		return nil, status.FromContextError(ctx.Err()).Err()
	case id == "":
		return nil, f.cfg.Refuse(ErrNoLeader)
	case id == f.cfg.Cluster.ID():
		return nil, ErrSelf
	}
	cc, err := f.conns.conn(addr)
	if err != nil {
		return nil, f.cfg.Refuse(err)
	}
	hctx, cancel := context.WithCancelCause(ctx)
	h := &Hop{Conn: cc, f: f, leader: id, caller: ctx, ctx: hctx, cancel: func() { cancel(nil) }, secretless: len(f.cfg.Secret.get()) == 0}
	if lim.Bound > 0 {
		var tcancel context.CancelFunc
		h.ctx, tcancel = context.WithTimeoutCause(hctx, f.bound(lim), ErrLeaderChanged)
		h.cancel = func() { tcancel(); cancel(nil) }
	}
	if lim.WatchLeader {
		go f.watch(h.ctx, id, cancel)
	}
	for _, key := range f.cfg.PassOn {
		for _, v := range metadata.ValueFromIncomingContext(ctx, key) {
			h.ctx = metadata.AppendToOutgoingContext(h.ctx, key, v)
		}
	}
	return h, nil
}

// bound is how long a hop under lim may take on this node's cluster: lim.Bound, stretched in
// proportion to an election wait longer than the default. A leader's commit on such a cluster
// takes as many more round trips' time, and a bound set for the default timing would give up on
// a leader that every follower still hears (its heartbeats are as far apart): the caller would
// hear "no quorum" from a healthy cluster. A shorter election wait keeps lim.Bound.
func (f *Forwarder) bound(lim Limits) time.Duration {
	if f.cfg.ElectionWait <= DefaultElectionWait {
		return lim.Bound
	}
	// In floating point: the product of two durations overflows an int64 of nanoseconds.
	return time.Duration(float64(lim.Bound) * (float64(f.cfg.ElectionWait) / float64(DefaultElectionWait)))
}

// leader is the leader's ID and address, once one is known, within ctx and the election wait.
func (f *Forwarder) leader(ctx context.Context) (id, addr string) {
	if id, addr = f.cfg.Cluster.Leader(); id != "" {
		f.knowsLeader()
		return id, addr
	}
	wait := f.cfg.ElectionWait
	if !f.sawLeader.Load() {
		wait *= 2
	}
	left := time.Unix(0, f.leaderAt.Load()).Add(wait).Sub(f.cfg.Now())
	if left <= 0 {
		return "", ""
	}
	if !pollFor(ctx, left, func() bool { id, addr = f.cfg.Cluster.Leader(); return id != "" }) {
		return "", ""
	}
	f.knowsLeader()
	return id, addr
}

// pollFor checks cond every pollInterval until it holds (true), or until ctx ends or wait
// passes (false).
func pollFor(ctx context.Context, wait time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if cond() {
			return true
		}
	}
}

// watch cancels a hop to leaderID once this node has seen another leader or none for a
// grace of a quarter of the election wait. An old leader that handed leadership over answers
// the calls it proposed before it let go (cluster.Node.TransferLeadership), and its answer may
// reach this node a moment after the new leader's election did: cut off at once, such a call
// was refused as "outcome unknown" although it had an answer on the way.
func (f *Forwarder) watch(ctx context.Context, leaderID string, cancel context.CancelCauseFunc) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	grace := f.cfg.ElectionWait / 4
	var changed time.Time // when this node first saw another leader or none; zero while it has not
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			id, _ := f.cfg.Cluster.Leader()
			switch {
			case id == leaderID:
				changed = time.Time{}
			case changed.IsZero():
				changed = time.Now()
			case time.Since(changed) >= grace:
				cancel(ErrLeaderChanged)
				return
			}
		}
	}
}
