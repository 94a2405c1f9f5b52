package main

import (
	"log/slog"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/hilopool"
	"github.com/idnode/idnode/internal/tlsconfig"
	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/node/httpapi"
	"github.com/idnode/idnode/node/metrics"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
)

// ops wires what an operator turns on by flags: TLS, the admin token and metrics. Each part
// is off (nil) unless its flags are given.
type ops struct {
	cfg     *config
	metrics *metrics.Metrics
}

// loadOps reads the TLS files and creates the metrics; run calls it before anything starts.
func loadOps(cfg *config) (*ops, error) {
	var err error
	if cfg.tls, err = tlsconfig.Load(cfg.tlsCert, cfg.tlsKey, cfg.tlsCA); err != nil {
		return nil, err
	}
	o := &ops{cfg: cfg}
	if cfg.metricsAddr != "" {
		o.metrics = metrics.New()
		if tracing.Enabled(os.Getenv) {
			o.metrics.EnableExemplars()
		}
	}
	return o, nil
}

// clusterConfig adds mutual TLS for Raft and the apply-latency and slow-apply hooks.
func (o *ops) clusterConfig(c cluster.Config) cluster.Config {
	if o.cfg.tls != nil {
		c.TLS = o.cfg.tls.Peer()
	}
	if o.metrics != nil {
		c.OnApply = o.metrics.RaftApply
		c.OnSlowApply = o.metrics.SlowApplies()
	}
	return c
}

// serverConfig adds mutual TLS for forwarding, the admin token, the observers and, in the
// test builds, the test clock and the issue rates' interval.
func (o *ops) serverConfig(c server.Config) server.Config {
	if o.cfg.tls != nil {
		c.PeerTLS = o.cfg.tls.Peer()
	}
	c.AdminToken = o.cfg.adminToken
	if o.cfg.now != nil {
		c.Now = o.cfg.now
	}
	c.IssueRatesInterval = o.cfg.issueRatesInterval
	if o.cfg.tls != nil {
		c.Certificates = o.certificates
	}
	if o.metrics != nil {
		c.Observer = o.metrics
		c.Identity.OnBatch = o.metrics.IdentityBatch
	}
	return c
}

// certificates are the node's TLS certificates with their expiry, for its headroom.
func (o *ops) certificates() []*idnodev1.CertificateExpiry {
	var out []*idnodev1.CertificateExpiry
	for _, e := range o.cfg.tls.Expiries() {
		out = append(out, &idnodev1.CertificateExpiry{Kind: e.Kind, Subject: e.Subject, NotAfterMs: e.NotAfter.UnixMilli()})
	}
	return out
}

// grpcOptions are the gRPC server's options besides the server's own: TLS and metrics.
func (o *ops) grpcOptions() []grpc.ServerOption {
	var opts []grpc.ServerOption
	if o.cfg.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(o.cfg.tls.Server(o.cfg.tlsClientAuth))))
	}
	return append(opts, o.metricsOptions()...)
}

// metricsOptions count a gRPC server's calls, when metrics are on.
func (o *ops) metricsOptions() []grpc.ServerOption {
	if o.metrics == nil {
		return nil
	}
	return o.metrics.ServerOptions()
}

// metricsInterceptors count the HTTP gateway's calls, when metrics are on.
func (o *ops) metricsInterceptors() httpapi.Interceptors {
	if o.metrics == nil {
		return httpapi.Interceptors{}
	}
	return httpapi.Interceptors{
		Unary:  []grpc.UnaryServerInterceptor{o.metrics.GRPC.UnaryServerInterceptor()},
		Stream: []grpc.StreamServerInterceptor{o.metrics.GRPC.StreamServerInterceptor()},
	}
}

// serve starts the metrics endpoint once the services are registered; it returns the stop
// function (a no-op when metrics are off).
func (o *ops) serve(gs *grpc.Server, raft *cluster.Node, headroom func() *idnodev1.Headroom, log *slog.Logger) (func(), error) {
	if o.metrics == nil {
		return func() {}, nil
	}
	o.metrics.GRPC.InitializeMetrics(gs)
	o.metrics.WatchRaft(raft)
	o.metrics.WatchHeadroom(headroom)
	o.metrics.WatchClusterVersion(raft.FSM())
	return o.metrics.Serve(o.cfg.metricsAddr, o.cfg.pprof, log)
}

// nodeConfig returns the node the flags describe, with the parts that ops adds. beforeStop
// bounds the stop.
func (o *ops) nodeConfig(log *slog.Logger, beforeStop func(*node.Node)) node.Config {
	c := o.cfg
	nc := node.Config{
		DataDir: c.dataDir, Tag: c.tag, TagSet: c.tagSet, Separator: c.separator,
		Join: c.join, JoinDialOptions: c.joinDialOptions(),
		GRPCAddr: c.grpcAddr, GRPCAdvertise: c.grpcAdvertise,
		RaftAddr: c.raftAddr, RaftAdvertise: c.raftAdvertise, Peers: c.peers,
		Region: c.region, PreferredRegion: c.preferredRegion,
		Place: func(tag string) (string, string, error) {
			c.tag = tag
			err := c.placeSelf()
			return c.raftAddr, c.raftAdvertise, err
		},
		HTTPAddr: c.httpAddr, HTTPAddrSet: c.httpAddrSet, HistoryInterval: c.http.historyInterval,
		HTTP: httpapi.ServerConfig{
			Options: httpapi.Options{AllowedOrigins: c.http.allowedOrigins, MaxBodyBytes: c.http.maxBody, MaxBodyMemory: c.http.maxBodyMemory,
				AllowedHosts: c.http.hosts(c.httpAddr, c.grpcAddr, c.grpcAdvertise, c.raftAddr, c.raftAdvertise)},
			ReadTimeout: c.http.readTimeout, IdleTimeout: c.http.idleTimeout, MaxConns: c.http.maxConns,
			Interceptors: o.metricsInterceptors(),
		},
		HiLoPools: c.hiloPools, MaxCount: c.maxCount, IdentityBatch: c.identityBatch,
		ElectionWait: c.electionWait, ClockOffsetWarn: c.clockOffsetWarn, ReplicaCheckInterval: c.replicaCheckInterval, HighWater: c.highWater, DiskSample: c.diskSample,
		RaftLog: c.raftLog, Timing: c.timing(),
		Limits: c.limits, MaxConns: c.maxConns,
		Logger: log, Exit: os.Exit,
		ClusterConfig: o.clusterConfig, ServerConfig: o.serverConfig,
		GRPCOptions:  o.grpcOptions(),
		ServeMetrics: o.serve,
		BeforeStop:   beforeStop,
		Tracing:      tracingFromEnv,
	}
	if c.tls != nil {
		nc.HTTP.TLS = c.tls.Server(c.tlsClientAuth)
	}
	if o.metrics != nil {
		nc.WatchHiLoPools = func(s *hilopool.Store) { o.metrics.WatchHiLoPools(s) }
	}
	return nc
}

// joinDialOptions are what this node dials another node with for a call it makes as an operator
// would (--join, and undoing a failed join): its peer TLS, and its admin token.
func (c *config) joinDialOptions() []grpc.DialOption {
	creds := insecure.NewCredentials()
	if c.tls != nil {
		creds = credentials.NewTLS(c.tls.Peer())
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if c.adminToken != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(client.AdminTokenCredentials(c.adminToken)))
	}
	return opts
}

// timing is Raft's timing: the one for --raft-rtt with the snapshot settings given.
func (c *config) timing() cluster.Timing {
	t := c.raftTiming
	t.SnapshotInterval, t.SnapshotThreshold = c.snapshotInterval, c.snapshotThreshold
	return t
}
