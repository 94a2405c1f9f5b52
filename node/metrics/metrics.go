// Package metrics defines every Prometheus metric idnode exports, in one place, and serves
// them on /metrics. The packages that do the work know nothing of Prometheus: they take small
// hooks (cluster.Config.OnApply, identity.Options.OnBatch, server.Config.Observer) that
// cmd/idnode points here.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/version"
)

// Metrics holds the node's registry and every metric on it.
type Metrics struct {
	Registry *prometheus.Registry
	// GRPC is the gRPC server metrics (grpc_server_*), with the handling-time histogram.
	GRPC *GRPCMetrics

	idsIssued *prometheus.CounterVec
	// issued holds idsIssued's counters by issuedKey, so that a call does not hash its labels
	// and take the vector's lock again; at most every strategy of every database with a
	// label of its own.
	issued        sync.Map
	databases     *boundedLabels
	poolTags      *boundedLabels // database + "/" + tag
	identityBatch prometheus.Histogram
	hiloRange     prometheus.Histogram
	noQuorum      prometheus.Counter
	poolRanges    *prometheus.CounterVec
	poolRefills   *prometheus.CounterVec
	poolReserved  *prometheus.CounterVec
	raftApply     prometheus.Histogram
	clock         clockMetrics
	// replicaMismatches is idnode_replica_digest_mismatches (replicas.go).
	replicaMismatches prometheus.Gauge
	exemplars         bool // EnableExemplars
}

// New creates the metrics on a fresh registry, with the Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		Registry:  prometheus.NewRegistry(),
		databases: newBoundedLabels(maxDatabaseLabels, fsm.DefaultDatabase),
		poolTags:  newBoundedLabels(maxPoolTagLabels),
		GRPC:      newGRPCMetrics(secondsBuckets),
		idsIssued: counterVec("idnode_ids_issued_total",
			"IDs this node handed to its callers, by strategy (semantic, guid, server-side, identity, hilo: the numbers of the ranges granted; series: fiscal series numbers issued; numeric: numeric IDs the node minted) and database (the first 64 seen; \"other\" for the rest).",
			"strategy", "database"),
		identityBatch: histogram("idnode_identity_batch_size",
			"Identity requests coalesced into one batch: one Raft entry on the leader, one relay call to the leader on a follower.",
			prometheus.ExponentialBuckets(1, 2, 13)), // 1 … 4096
		hiloRange: histogram("idnode_hilo_range_size",
			"Size of the HiLo ranges this node granted to its callers.",
			prometheus.ExponentialBuckets(32, 2, 16)), // 32 … 1,048,576
		poolRanges: counterVec("idnode_hilo_pool_ranges_total",
			"HiLo ranges this node granted from its own pool, without a Raft round, by database and tag (the first 256 tags; \"other\" for the rest); the rest of idnode_hilo_range_size_count went through the cluster.",
			"database", "tag"),
		poolRefills: counterVec("idnode_hilo_pool_refills_total",
			"Reservations through the cluster that filled this node's HiLo pools, by database and tag.",
			"database", "tag"),
		poolReserved: counterVec("idnode_hilo_pool_reserved_total",
			"HiLo numbers the cluster reserved to this node's pools, by database and tag.",
			"database", "tag"),
		noQuorum: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "idnode_no_quorum_refusals_total",
			Help: "Calls this node refused with UNAVAILABLE because it could not reach a majority of the cluster.",
		}),
		raftApply: histogram("idnode_raft_apply_duration_seconds",
			"Time from proposing a Raft command on the leader until it was committed and applied (or failed).",
			secondsBuckets),
	}
	for _, k := range docid.Kinds {
		m.idsIssued.WithLabelValues(k.String(), fsm.DefaultDatabase) // every strategy shows, at 0, from the first scrape
	}
	build := version.Get()
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "idnode_build_info",
		Help:        "Always 1; its labels say which build of idnode this node runs (the same as idnode version and Status).",
		ConstLabels: prometheus.Labels{"version": build.String(), "commit": build.Commit, "goversion": build.GoVersion},
	})
	buildInfo.Set(1)
	m.Registry.MustRegister(
		buildInfo,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.GRPC, m.idsIssued, m.identityBatch, m.hiloRange, m.noQuorum, m.raftApply, m.poolRanges, m.poolRefills, m.poolReserved,
	)
	m.clock = newClockMetrics(m.Registry)
	m.replicaMismatches = newReplicaMismatches(m.Registry)
	return m
}

// secondsBuckets are the buckets of the durations measured in seconds (gRPC handling, Raft
// apply): 0.5 ms to 10 s.
var secondsBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// counterVec is a counter vector with the given labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// histogram is a histogram with the given buckets.
func histogram(name, help string, buckets []float64) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
}

// ServerOptions adds the gRPC server metrics' interceptors.
func (m *Metrics) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(m.GRPC.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(m.GRPC.StreamServerInterceptor()),
	}
}

// IDsIssued counts n IDs handed out by strategy (a docid.Kind's name, "series" or "numeric")
// in database ("" is the default).
func (m *Metrics) IDsIssued(strategy, database string, n int64) {
	key := issuedKey{strategy, fsm.DatabaseName(database)}
	if c, ok := m.issued.Load(key); ok {
		c.(prometheus.Counter).Add(float64(n))
		return
	}
	label := m.databases.label(key.database)
	c := m.idsIssued.WithLabelValues(strategy, label)
	if label == key.database {
		m.issued.Store(key, c)
	}
	c.Add(float64(n))
}

type issuedKey struct{ strategy, database string }

// database is the database label of name ("" is the default).
func (m *Metrics) database(name string) string { return m.databases.label(fsm.DatabaseName(name)) }

// poolLabels are the database and tag labels of a HiLo pool.
func (m *Metrics) poolLabels(database, tag string) (string, string) {
	db := m.database(database)
	if m.poolTags.label(db+"/"+tag) == otherLabel {
		return db, otherLabel
	}
	return db, tag
}

// HiLoRange observes the size of a granted HiLo range.
func (m *Metrics) HiLoRange(size int64) { m.hiloRange.Observe(float64(size)) }

// NoQuorum counts one call refused for want of a quorum.
func (m *Metrics) NoQuorum() { m.noQuorum.Inc() }

// HiLoPoolGrant counts one range granted from a HiLo pool of this node.
func (m *Metrics) HiLoPoolGrant(database, tag string, _ int64) {
	m.poolRanges.WithLabelValues(m.poolLabels(database, tag)).Inc()
}

// HiLoPoolRefill counts one reservation of n numbers to a HiLo pool of this node.
func (m *Metrics) HiLoPoolRefill(database, tag string, n int64) {
	db, t := m.poolLabels(database, tag)
	m.poolRefills.WithLabelValues(db, t).Inc()
	m.poolReserved.WithLabelValues(db, t).Add(float64(n))
}

// IdentityBatch observes the size of one coalesced identity batch (identity.Options.OnBatch).
func (m *Metrics) IdentityBatch(size int) { m.identityBatch.Observe(float64(size)) }

// RaftApply observes one Raft apply (cluster.Config.OnApply), with its trace as an exemplar.
func (m *Metrics) RaftApply(ctx context.Context, d time.Duration) {
	observe(ctx, m.raftApply, d.Seconds(), m.exemplars)
}

// RaftSource is what the Raft collector reads at scrape time; cluster.Node is one.
type RaftSource interface {
	State() string // leader, follower, candidate or shutdown
	Term() uint64
	CommitIndex() uint64
	AppliedIndex() uint64
	LastContact() time.Time
	StorageFault() error // a *cluster.StorageError, or nil
}

// raftStates are the values of RaftSource.State.
var raftStates = []string{"leader", "follower", "candidate", "shutdown"}

// WatchRaft exports r's state, term, commit and applied index and last contact, read when
// Prometheus scrapes.
func (m *Metrics) WatchRaft(r RaftSource) {
	m.Registry.MustRegister(&raftCollector{r: r})
}

var (
	raftStateDesc = prometheus.NewDesc("idnode_raft_state",
		"1 for the Raft state this node is in (leader, follower, candidate, shutdown), 0 for the others.", []string{"state"}, nil)
	raftTermDesc    = prometheus.NewDesc("idnode_raft_term", "Current Raft term.", nil, nil)
	raftCommitDesc  = prometheus.NewDesc("idnode_raft_commit_index", "Highest Raft log index known to be committed.", nil, nil)
	raftAppliedDesc = prometheus.NewDesc("idnode_raft_applied_index", "Highest Raft log index applied to this node's state machine.", nil, nil)
	raftContactDesc = prometheus.NewDesc("idnode_raft_last_contact_seconds",
		"Seconds since this node last heard from the leader; 0 on the leader, -1 if it never has.", nil, nil)
	storageFaultDesc = prometheus.NewDesc("idnode_storage_fault",
		"1 while this node cannot write its Raft log, by kind: full (the disk is full; alert on this as on etcd's NOSPACE alarm) or failed (another write error).", []string{"kind"}, nil)
)

type raftCollector struct{ r RaftSource }

func (c *raftCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{raftStateDesc, raftTermDesc, raftCommitDesc, raftAppliedDesc, raftContactDesc, storageFaultDesc} {
		ch <- d
	}
}

func (c *raftCollector) Collect(ch chan<- prometheus.Metric) {
	state := c.r.State()
	for _, s := range raftStates {
		v := 0.0
		if s == state {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(raftStateDesc, prometheus.GaugeValue, v, s)
	}
	ch <- prometheus.MustNewConstMetric(raftTermDesc, prometheus.GaugeValue, float64(c.r.Term()))
	ch <- prometheus.MustNewConstMetric(raftCommitDesc, prometheus.GaugeValue, float64(c.r.CommitIndex()))
	ch <- prometheus.MustNewConstMetric(raftAppliedDesc, prometheus.GaugeValue, float64(c.r.AppliedIndex()))
	contact := -1.0
	switch last := c.r.LastContact(); {
	case state == "leader":
		contact = 0
	case !last.IsZero():
		contact = time.Since(last).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(raftContactDesc, prometheus.GaugeValue, contact)
	fault := c.r.StorageFault()
	full, failed := 0.0, 0.0
	switch {
	case errors.Is(fault, cluster.ErrStorageFull):
		full = 1
	case fault != nil:
		failed = 1
	}
	ch <- prometheus.MustNewConstMetric(storageFaultDesc, prometheus.GaugeValue, full, "full")
	ch <- prometheus.MustNewConstMetric(storageFaultDesc, prometheus.GaugeValue, failed, "failed")
}

// Handler serves the registry in the Prometheus text format, or in OpenMetrics to a scraper
// that asks for it (Accept: application/openmetrics-text), the format that carries exemplars.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry, EnableOpenMetrics: true})
}

// Serve listens on addr and serves /metrics in the background, and with profile also Go's
// profiler under /debug/pprof/ (CPU, heap, goroutines: what docs/BENCHMARKS.md's profiles were
// taken with), but not /debug/pprof/cmdline, which would show the node's command line, an
// admin token given as a flag included, to whoever asks; cmd/idnode serves the
// profiler on a loopback address only. It returns once the listener is up, so a bad address fails the node's start;
// the returned function stops the server.
func (m *Metrics) Serve(addr string, profile bool, log *slog.Logger) (stop func(), err error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for metrics on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	if profile {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	log.Info("serving metrics", "addr", lis.Addr().String(), "path", "/metrics", "pprof", profile)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
