package node

import (
	"log/slog"
	"net"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/hilopool"
	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/node/httpapi"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
)

// Config is one node: what cmd/idnode's flags say, the parts the operator's flags add (TLS,
// the admin token, metrics) as hooks, and the seams of the in-process test cluster.
type Config struct {
	DataDir string
	// Tag is the node's tag. A data dir that has one keeps it; TagSet (--tag given) makes
	// another one an error, and with Join asks the cluster for this tag.
	Tag    string
	TagSet bool
	// Separator is the identity parts separator, the same on every node.
	Separator rune
	// Join is the gRPC address of any node of a running cluster to join through, on the first
	// start of a data dir; JoinDialOptions are what this node dials it with (its peer TLS and
	// admin token), also to undo a join it could not complete.
	Join            string
	JoinDialOptions []grpc.DialOption
	// GRPCAddr is where the client port listens, GRPCAdvertise where other nodes reach it
	// (GRPCAddr when empty).
	GRPCAddr      string
	GRPCAdvertise string
	// RaftAddr is where Raft listens, RaftAdvertise where other nodes reach it (RaftAddr when
	// empty); Place, when set, settles both once the tag is known (it may come from the data
	// dir): --peers names this node's address by its tag.
	RaftAddr      string
	RaftAdvertise string
	Place         func(tag string) (raftAddr, raftAdvertise string, err error)
	// Peers lists the voters of a statically bootstrapped cluster, this node included.
	Peers []cluster.Peer
	// Region labels the node, and PreferredRegion is where the cluster's leader should be
	// (cluster.Config); empty: no label, no preference.
	Region, PreferredRegion string
	// HTTPAddr is where the HTTP/JSON face listens; empty means nowhere. HTTPAddrSet says the
	// address was given, which makes a taken address an error; a taken default address only
	// turns HTTP off.
	HTTPAddr    string
	HTTPAddrSet bool
	HTTP        httpapi.ServerConfig
	// HistoryInterval is how often the console's graphs take a sample, with HTTP on (0:
	// history.DefaultInterval).
	HistoryInterval time.Duration
	// HiLoPools grants HiLo ranges from the node's own pools (hilopool).
	HiLoPools     bool
	MaxCount      int64
	IdentityBatch int
	ElectionWait  time.Duration
	// HighWater is how often the data dir's manifest records the applied Raft index.
	HighWater time.Duration
	// DiskSample is how often the node samples the free bytes under DataDir (diskwatch.go); 0
	// is DefaultDiskSampleInterval.
	DiskSample time.Duration
	// RaftLog is the Raft log store a new data dir is made with (cluster.Config.LogStore).
	// Empty means the one the data dir holds, or cluster.DefaultLogStore for a new one.
	RaftLog cluster.LogStore
	// ClockOffsetWarn is the offset from the leader's clock past which the node logs a warning
	// (server.Config.ClockOffsetWarn; 0: the default).
	ClockOffsetWarn time.Duration
	// ReplicaCheckInterval is how often the leader compares the members' state digests
	// (server.Config.ReplicaCheckInterval; 0: the default).
	ReplicaCheckInterval time.Duration
	Limits               server.Limits
	// Backups is the cluster's scheduled backups (backupschedule.go); a nil Store: none.
	Backups BackupSchedule
	// MaxConns bounds the client port's connections (connlimit).
	MaxConns int
	Logger   *slog.Logger // nil: slog.Default()
	// Exit ends the process when the node halts (a command it does not know, a Raft term it
	// cannot write), with ExitHalted or ExitStorageHalted. Tests leave it nil, which sets no
	// halt hooks.
	Exit func(code int)

	// ClusterConfig and ServerConfig, when set, add to the Raft and server settings (TLS,
	// the admin token, metrics hooks).
	ClusterConfig func(cluster.Config) cluster.Config
	ServerConfig  func(server.Config) server.Config
	// GRPCOptions are the client port's server options besides the server's own (TLS, metrics);
	// their interceptors run before the server's.
	GRPCOptions []grpc.ServerOption
	// ServeMetrics, when set, starts the metrics endpoint once the services are registered,
	// returning the function that stops it; WatchHiLoPools shows the pools in it.
	ServeMetrics   func(gs *grpc.Server, node *cluster.Node, headroom func() *idnodev1.Headroom, log *slog.Logger) (func(), error)
	WatchHiLoPools func(*hilopool.Store)
	// Tracing, when set, makes the node's tracing once its tag is known, with the node's
	// logger (tracing.FromEnv in cmd/idnode); a nil *tracing.Tracing turns it off, as a nil
	// Tracing does.
	Tracing func(tag string, log *slog.Logger) (*tracing.Tracing, error)
	// BeforeStop, when set, is called once the node is told to stop, before anything stops
	// (cmd/idnode bounds the stop from there).
	BeforeStop func(*Node)

	// Seams of the in-process test cluster. GRPCListener, when set, is the client port,
	// already listening. Transport replaces Raft's TCP transport (cluster.Config.Transport);
	// the internal services are then served on InternalListener, there being no Raft port to
	// share. Timing is Raft's (zero: cluster.DefaultTiming), Dial how the node reaches others
	// for Raft and forwarding alike (nil: TCP). ServerOptions are added to every gRPC server the node runs.
	// HTTPListener, when set, is the HTTP/JSON face's port, already listening, in place of HTTPAddr.
	GRPCListener     net.Listener
	HTTPListener     net.Listener
	Transport        raft.Transport
	InternalListener net.Listener
	Timing           cluster.Timing
	Dial             forward.Dialer
	ServerOptions    []grpc.ServerOption
}

// place settles the Raft addresses for the node's tag.
func (c *Config) place() error {
	if c.Place != nil {
		var err error
		c.RaftAddr, c.RaftAdvertise, err = c.Place(c.Tag)
		return err
	}
	if c.RaftAdvertise == "" {
		c.RaftAdvertise = c.RaftAddr
	}
	return nil
}
