// Package server implements idnode's gRPC services on top of a cluster.Node: it classifies
// requests, answers local strategies (semantic, GUID, server-side) on its own, and sends the
// Raft-backed ones (identities, HiLo) through the leader.
package server

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/hilo"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/batch"
	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/etag"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/hilopool"
	"github.com/idnode/idnode/internal/tracing"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// forwardInFlight lets a follower have a few batches on their way to the leader: the leader
// merges them into its own batches anyway, and a caller arriving mid-call need not wait.
const forwardInFlight = 4

// streamWorkers is how many goroutines serve calls and are kept between them. Without them
// grpc-go starts a goroutine per call, whose stack grows from scratch every time: 13% of a
// node's CPU under 64 callers of server-side IDs. About as many as the callers a node serves
// at once; more calls than that still get a goroutine each, as before.
const streamWorkers = 64

// Cluster is what the server needs of its node's Raft side. cluster.Node is the one; tests of
// the server alone may bring their own. Its errors are cluster's sentinels (errors.go maps
// them to codes and reasons).
type Cluster interface {
	ID() string     // this node's Raft member ID
	FSM() *fsm.FSM  // for local reads
	IsLeader() bool // a belief; only Apply and ReadBarrier prove it
	Apply(ctx context.Context, cmd []byte) (any, error)
	ReadBarrier(ctx context.Context) error
	Leader() (id, address string)
	State() string // leader, follower, candidate or shutdown
	Term() uint64
	CommitIndex() uint64
	AppliedIndex() uint64
	HasApplied(index uint64) bool // the FSM holds every entry up to index that changes it
	// WaitApplied waits until the FSM has applied the command at index, or ctx ends.
	WaitApplied(ctx context.Context, index uint64) bool
	Members() []cluster.Member
	AddMember(m cluster.Member, timeout time.Duration) error
	RemoveMember(id string, timeout time.Duration) error
	TransferLeadership(to cluster.Member) error
	AwaitHandOver(ctx context.Context) // while a hand-over of leadership is under way here
	StorageFault() error               // why the last write of the Raft log failed; nil if it did not
	LeaderChanges() []cluster.LeaderChange
}

var _ Cluster = (*cluster.Node)(nil)

// Config is what the server needs besides its collaborators.
type Config struct {
	Tag         string // this node's tag, e.g. "A"
	GRPCAddress string // address other nodes and clients reach this node's gRPC server at
	RaftAddress string // this node's advertised Raft address, for the registry
	Separator   rune
	MaxCount    int64 // largest count per call
	HiLo        hilo.Policy
	Identity    identity.Options
	// OnIdentityRound, when set, is told of every identity batch once answered: the leader's
	// (leader true, committed to Raft) and a follower's (relayed to the leader). The
	// commit-round trace (bench_round_test.go) reads it; Identity.OnRound is not used.
	OnIdentityRound func(leader bool, r batch.Round)
	// OnIdentityCall, when set, is told how long each identity call on the client port (or
	// the HTTP gateway) took to answer, refusals included (the console's latency graph).
	OnIdentityCall func(time.Duration)
	Now            func() time.Time
	// IssueRatesInterval is how often the node samples the cluster's issue rates, which a
	// backup records for a restore's margin (issuerates.go); 0 is a minute.
	IssueRatesInterval time.Duration
	Logger             *slog.Logger
	// State is this node's identity from its data dir; SaveState persists it when the
	// cluster accepts the node.
	State     datadir.NodeState
	SaveState func(datadir.NodeState) error
	// Dial connects to other nodes; nil means plain TCP.
	Dial forward.Dialer
	// ElectionWait bounds how long a call that finds no leader waits for an election
	// (forward.Config.ElectionWait; 0 is forward.DefaultElectionWait).
	ElectionWait time.Duration
	// PeerTLS, when set, is the mutual TLS this node speaks to other nodes' gRPC
	// (tlsconfig.Node.Peer); nil means plaintext.
	PeerTLS *tls.Config
	// AdminToken, when set, is the bearer token admin calls must carry (see auth.go). The node
	// sends it on its own admin calls (registering itself).
	AdminToken string
	// Pools, when set, is this node's store of HiLo pools: NextHiLo grants from it without a
	// Raft round, also without a quorum (hilopool.go). Nil: every range through the cluster.
	Pools HiLoPools
	// Observer, when set, is told what the node hands out and refuses (metrics).
	Observer Observer
	// Joined says the node was started with --join on a data dir that had joined already: if
	// it is a non-voter, its join did not finish (joinstate.go).
	Joined bool
	// OnFatal, when set, is told of a condition under which this node must stop serving: the
	// cluster's separator differs from Separator. cmd/idnode exits.
	OnFatal func(error)
	// Limits bound what callers may hold of each gRPC server (bounds.go); zero fields take
	// DefaultLimits.
	Limits Limits
	// LookupHost resolves the host names in the addresses AddNode compares (memberaddr.go); nil
	// is the default resolver. The in-process test clusters give their nodes one that asks no
	// DNS server: their hosts are their own, and the default resolver shares a lookup in flight
	// between all its callers, which two testing/synctest bubbles may not.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
	// NumericLease is how long the worker leases this node mints numeric IDs under run
	// (numeric.go); 0 is DefaultNumericLease.
	NumericLease time.Duration
	// ClockProbeInterval is how often a node that does not lead measures its clock against the
	// leader's (clock.go); 0 is DefaultClockProbeInterval. ClockOffsetWarn is the offset past
	// which it logs a warning; 0 is DefaultClockOffsetWarn.
	ClockProbeInterval time.Duration
	ClockOffsetWarn    time.Duration
	// ReplicaCheckInterval is how often the leader compares the members' state digests
	// (replicacheck.go); 0 is DefaultReplicaCheckInterval.
	ReplicaCheckInterval time.Duration
	// Disk, when set, says the free bytes on the file system under the data dir and the days
	// until it is full at the last hour's growth (+Inf while it is not filling), for Status and
	// the headroom gauges (headroom.go). Nil: unknown.
	Disk func() (freeBytes uint64, fullInDays float64)
	// Certificates, when set, lists the certificates the node presents and trusts, with their
	// expiry (TLS on). Nil: none.
	Certificates func() []*idnodev1.CertificateExpiry
	// Tracing, when set, traces every call the node serves and relays (gRPC's stats handlers)
	// and the identity batches' stages (identityRounds); nil: tracing is off.
	Tracing *tracing.Tracing
}

// Server is one node's gRPC side: it assembles the services over their shared core, puts
// them on the client port's and the internal server, runs the calls' interceptors, and runs
// the node's background loops (registering itself, health, the cluster secret).
type Server struct {
	*core
	ids       *idService
	cluster   *clusterService
	series    *seriesService
	intercept *interceptors

	etags *etag.Counter
	// etagRecord publishes the counter's watermarks to the cluster (etagrecord.go).
	etagRecord *etagRecord
	// poolMarks is cfg.Pools with the cluster's marks (hilopool.Marked); nil with a store that
	// cannot be marked (tests' fakes).
	poolMarks *hilopool.Marked
	health    *health.Server
	// publicCalls and internalCalls count the calls the client port (with the HTTP gateway's
	// server) and the internal server hold, each bounded by Limits.MaxCalls (bounds.go), so
	// callers of the client port cannot take the internal server's share.
	publicCalls, internalCalls *callCount

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// New builds the server; Register puts it on a grpc.Server and Start begins its background
// work (self-registration, health).
func New(cfg Config, node Cluster, etags *etag.Counter) *Server {
	if cfg.Separator == 0 {
		cfg.Separator = docid.DefaultSeparator
	}
	if cfg.MaxCount < 1 {
		cfg.MaxCount = docid.DefaultMaxCount
	}
	if cfg.HiLo == (hilo.Policy{}) {
		cfg.HiLo = hilo.DefaultPolicy
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.IssueRatesInterval <= 0 {
		cfg.IssueRatesInterval = defaultIssueRatesInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.LookupHost == nil {
		cfg.LookupHost = lookupNetIP
	}
	if cfg.NumericLease == 0 {
		cfg.NumericLease = DefaultNumericLease
	}
	if cfg.ClockProbeInterval == 0 {
		cfg.ClockProbeInterval = DefaultClockProbeInterval
	}
	if cfg.ReplicaCheckInterval == 0 {
		cfg.ReplicaCheckInterval = DefaultReplicaCheckInterval
	}
	if cfg.ClockOffsetWarn == 0 {
		cfg.ClockOffsetWarn = DefaultClockOffsetWarn
	}
	if cfg.SaveState == nil {
		cfg.SaveState = func(datadir.NodeState) error { return nil }
	}
	cfg.Limits = cfg.Limits.withDefaults()
	var c *core // the forwarder refuses through the core it is part of, built next
	c = newCore(cfg, node, newForwarder(cfg, node, func(err error) error { return c.noQuorum(err) }))
	s := &Server{core: c, intercept: &interceptors{core: c}, etags: etags, health: health.NewServer()}
	s.publicCalls, s.internalCalls = &callCount{max: cfg.Limits.MaxCalls}, &callCount{max: cfg.Limits.MaxCalls}
	s.etagRecord = newEtagRecord(s)
	if etags != nil {
		etags.OnRaise(s.etagRecord.raised)
	}
	if p, ok := cfg.Pools.(hilopool.Markable); ok {
		s.poolMarks = hilopool.NewMarked(p, poolRecord{s}, s.log)
		s.cfg.Pools = s.poolMarks
	}
	relayOpts := identityRounds(cfg, false)
	if relayOpts.MaxInFlight == 0 && relayOpts.MaxBatch != 1 {
		relayOpts.MaxInFlight = forwardInFlight
	}
	s.ids = newIDService(c, etags, s.etagRecord, relayOpts)
	s.cluster = &clusterService{core: c, issued: &s.intercept.issued, ids: s.ids,
		rates:    &issueRates{totals: func() (float64, float64) { return node.FSM().IssuedTotals() }, now: cfg.Now, every: cfg.IssueRatesInterval},
		replicas: &replicaCheck{core: c, every: cfg.ReplicaCheckInterval}}
	s.series = newSeriesService(c, relayOpts.MaxInFlight)
	s.registered.Store(cfg.State.Registered)
	// grpc-go's health server starts with "" SERVING; nothing may claim that before the
	// first real check.
	for _, name := range []string{"", HealthIdService, HealthLocal, HealthConsensus} {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_NOT_SERVING)
	}
	return s
}

// ServerOptions are the options the grpc.Server given to Register must be created with.
func (s *Server) ServerOptions() []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(s.intercept.unary),
		grpc.ForceServerCodecV2(newLenientCodec()),
		grpc.NumStreamWorkers(streamWorkers),
		grpc.ChainStreamInterceptor(withReasonStream, s.intercept.auditStream, refuseUndecodableStream, s.intercept.authorizeStream, s.refuseFencedStream),
	}, append(s.cfg.Limits.options(s.publicCalls), s.cfg.Tracing.ServerOptions()...)...)
}

// UnaryInterceptor is the unary interceptor ServerOptions installs, for a caller that runs
// the services' handlers without a grpc.Server (the HTTP gateway's direct calls).
func (s *Server) UnaryInterceptor() grpc.UnaryServerInterceptor { return s.intercept.unary }

// Admit counts a call that runs without a grpc.Server among the calls in flight until it calls
// end, or refuses it as the tap of ServerOptions would (Limits.MaxCalls).
func (s *Server) Admit() (end func(), err error) {
	if err := s.publicCalls.enter(); err != nil {
		return nil, err
	}
	return s.publicCalls.leave, nil
}

// Register adds the public services to gs, the client port's server: IdService,
// ClusterService, SeriesService, health and reflection.
func (s *Server) Register(gs reflection.GRPCServer) {
	idnodev1.RegisterIdServiceServer(gs, s.ids)
	idnodev1.RegisterClusterServiceServer(gs, s.cluster)
	idnodev1.RegisterSeriesServiceServer(gs, s.series)
	healthpb.RegisterHealthServer(gs, s.health)
	reflection.Register(gs)
}

// Start runs the background loops until Close: health, self-registration, the cluster
// secret, and the clock's offset from the leader's.
func (s *Server) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.wg.Add(4)
	if s.cfg.Pools != nil {
		s.wg.Go(func() { s.ids.pools.granter.Refill(ctx) })
	}
	s.warnUnfinishedJoin()
	go func() { defer s.wg.Done(); s.watchHealth(ctx) }()
	go func() { defer s.wg.Done(); s.registerSelf(ctx) }()
	go func() { defer s.wg.Done(); s.ensureClusterSecret(ctx) }()
	go func() { defer s.wg.Done(); s.ensureFold(ctx) }()
	s.wg.Go(func() { s.clock.watch(ctx) })
	s.wg.Go(func() { s.cluster.rates.run(ctx) })
	s.wg.Go(func() { s.cluster.replicas.run(ctx) })
	s.wg.Go(func() { s.checkAtStart(ctx) })
	s.wg.Go(func() { s.keepFencedFromLeading(ctx) })
	if s.etags != nil {
		s.wg.Go(func() { s.etagRecord.run(ctx) })
	}
	if s.poolMarks != nil {
		s.wg.Go(func() { s.poolMarks.Run(ctx) })
	}
}

// Close stops the background loops and the identity batcher; the grpc.Server is the caller's.
func (s *Server) Close() {
	s.ids.closeNumeric(numericCloseTimeout) // while the node can still reach the leader
	if s.stop != nil {
		s.stop()
	}
	s.wg.Wait()
	if s.poolMarks != nil {
		s.poolMarks.Seal() // nothing grants from the pools any more
	}
	s.health.Shutdown()
	s.ids.close()
	s.series.close()
	s.fwd.Close()
}
