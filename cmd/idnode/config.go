package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/tlsconfig"
	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/server"
)

// The smallest snapshot settings: below them a busy node would snapshot, writing its whole
// state and every series journal, many times a second.
const (
	minSnapshotInterval  = time.Second
	minSnapshotThreshold = 16
)

// The range of --clock-offset-warn: below 10ms the measurement's own error (half a round trip
// to the leader, under load) would warn; past an hour a clock is so far off that the warning
// would come too late to mean anything.
const (
	minClockOffsetWarn = 10 * time.Millisecond
	maxClockOffsetWarn = time.Hour
)

// config is everything the daemon is told by flags or IDNODE_* environment variables.
type config struct {
	tag           string
	dataDir       string
	grpcAddr      string
	httpAddr      string
	httpAddrSet   bool // --http-addr (or IDNODE_HTTP_ADDR) was given, so failing to bind it is fatal
	http          httpConfig
	backups       backupFlags
	hiloPools     bool
	memoryLimit   int64 // bytes; 0: none given
	grpcAdvertise string
	raftAddr      string
	raftAdvertise string
	peers         []cluster.Peer
	join          string
	tagSet        bool
	raftAddrSet   bool
	separator     rune
	maxCount      int64
	identityBatch int
	electionWait  time.Duration
	highWater     time.Duration
	// clockOffsetWarn is the offset from the leader's clock past which the node warns.
	clockOffsetWarn time.Duration
	// replicaCheckInterval is how often the leader compares the members' state digests.
	replicaCheckInterval time.Duration
	// diskSample is how often the node samples the free bytes under its data dir.
	diskSample time.Duration
	raftLog    cluster.LogStore // "": the data dir's own, or cluster.DefaultLogStore for a new one
	// region labels this node; preferredRegion is where the leader should be (cluster.Config).
	region, preferredRegion string
	// raftRTT is the round trip between the nodes farthest apart, from which raftTiming (all
	// of cluster.Timing but the snapshot settings) and, unless given, electionWait follow.
	raftRTT    time.Duration
	raftTiming cluster.Timing
	// snapshots are Raft's snapshot settings.
	snapshotInterval  time.Duration
	snapshotThreshold uint64
	logFormat         string
	logLevel          slog.Level
	metricsAddr       string
	pprof             bool
	tlsCert           string
	tlsKey            string
	tlsCA             string
	tlsClientAuth     tls.ClientAuthType
	adminToken        string
	// adminTokenOnCommandLine: --admin-token was a flag, which every user of the machine can
	// read (ps, /proc): the node warns.
	adminTokenOnCommandLine bool
	limits                  server.Limits
	maxConns                int
	showVersion             bool
	// warnings name the unknown IDNODE_* variables, logged once the logger is up.
	warnings []string
	// now is the node's wall clock: nil (the machine's) but in the test build (-tags
	// testclock), where IDNODE_TEST_CLOCK_FILE can offset it (testclock_on.go).
	now func() time.Time
	// issueRatesInterval is how often the server samples the issue rates: 0 (its default)
	// but in the test build with tag fastbackups (fastbackups_on.go).
	issueRatesInterval time.Duration
	// tls is loaded from tlsCert, tlsKey and tlsCA by run; nil when TLS is off.
	tls *tlsconfig.Node
}

// parseConfig reads flags, falling back to IDNODE_<FLAG> environment variables (IDNODE_DATA_DIR
// for --data-dir) for anything not given on the command line, then to --config's file. It
// reports every bad value of all three at once. The usage (-h) goes to usage.
func parseConfig(args []string, env environ, usage io.Writer) (*config, error) {
	fs := flag.NewFlagSet("idnode", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // one-line errors; the full usage only for -h
	var (
		c             config
		peers         string
		separator     string
		logLevel      string
		tlsClientAuth string
		configFile    string
		memoryLimit   string
		raftLog       string
		tokenFile     string
	)
	fs.StringVar(&c.tag, "tag", "A", "this node's tag: 1-4 upper-case letters, part of every server-side ID it issues")
	fs.StringVar(&c.dataDir, "data-dir", "./idnode-data", "directory for the Raft log, snapshots and the etag watermark")
	fs.StringVar(&c.grpcAddr, "grpc-addr", "127.0.0.1:7070", "host:port to serve gRPC on")
	fs.StringVar(&c.httpAddr, "http-addr", "127.0.0.1:7080", "host:port to serve the HTTP/JSON API, /healthz and /readyz on (TLS like gRPC); empty: no HTTP")
	c.http.register(fs)
	c.backups.register(fs)
	fs.StringVar(&c.grpcAdvertise, "grpc-advertise", "", "host:port other nodes reach this node's gRPC at (default: --grpc-addr, with this machine's host name for a wildcard host such as 0.0.0.0)")
	fs.StringVar(&c.raftAddr, "raft-addr", "127.0.0.1:7100", "host:port to listen on for Raft traffic; with --peers, this node's entry unless given")
	fs.StringVar(&c.raftAdvertise, "raft-advertise", "", "host:port other nodes reach this node's Raft at; a host name is fine (default: this node's entry in --peers, else --raft-addr, with this machine's host name for a wildcard host such as 0.0.0.0)")
	fs.StringVar(&peers, "peers", "", "static cluster: TAG=raft-host:port,... listing every node, this one included; empty for a single-node cluster")
	fs.StringVar(&c.region, "region", "", "this node's region (or zone) label, e.g. eu-west: a leader outside --preferred-region hands leadership to a caught-up node of that region")
	fs.StringVar(&c.preferredRegion, "preferred-region", "", "the region the leader should be in, the same on every node (docs/regions.md); empty: wherever the election puts it")
	fs.StringVar(&c.join, "join", "", "gRPC host:port of any node of a running cluster to join on first start (tag assigned unless --tag is given)")
	fs.StringVar(&separator, "separator", string(docid.DefaultSeparator), "identity parts separator, one character, the same on every node")
	fs.Int64Var(&c.maxCount, "max-count", docid.DefaultMaxCount, "largest count one call may ask for")
	fs.IntVar(&c.identityBatch, "identity-batch", identity.DefaultOptions.MaxBatch, "most identity requests the leader coalesces into one Raft entry; 1 turns coalescing off")
	fs.DurationVar(&c.electionWait, "election-wait", forward.DefaultElectionWait, "how long an identity or HiLo call that finds no leader waits for an election before it is refused; "+
		"a node cut off in a minority refuses identities within a heartbeat timeout plus this of the cut (1.25s on a LAN), so a longer wait only makes it slower to refuse (default: four election timeouts of --raft-rtt's timing, 1s on a LAN; docs/regions.md)")
	fs.DurationVar(&c.highWater, "high-water-interval", datadir.DefaultHighWaterInterval, "how often the data dir records how far its Raft log is known durable, so a Raft log replaced by an older copy is refused at start "+
		"even after a crash; a copy less than this old can pass; 0: only at snapshots and clean stops")
	fs.DurationVar(&c.clockOffsetWarn, "clock-offset-warn", server.DefaultClockOffsetWarn, "log a warning when this node's clock is off the leader's by more than this (10ms to 1h); "+
		"idnode_clock_offset_seconds shows the offset, and a numeric minter whose clock is set back more than a second refuses until it catches up (docs/cluster.md)")
	fs.DurationVar(&c.replicaCheckInterval, "replica-check-interval", server.DefaultReplicaCheckInterval, fmt.Sprintf("how often the leader marks the log and compares every member's state digest at the mark, "+
		"naming a member whose state diverged (docs/replica-checks.md); at least %v", server.MinReplicaCheckInterval))
	fs.DurationVar(&c.diskSample, "disk-sample-interval", node.DefaultDiskSampleInterval, fmt.Sprintf("how often the node samples the free bytes under its data dir, "+
		"from which it judges the days until the disk is full at the last hour's growth (docs/metrics.md); %v..%v", node.MinDiskSampleInterval, node.MaxDiskSampleInterval))
	fs.StringVar(&raftLog, "raft-log", "", fmt.Sprintf("store of the Raft log in a new data dir: %s (raft-wal, raft/wal/: one fsync per append) or %s (raft-boltdb, raft/raft.db, the store of data dirs made before %s became the default); "+
		"default: the one the data dir holds, %s for a new one. A data dir keeps the store it was made with: naming the other one is an error; "+
		"to move a node, remove it and join it again with an empty data dir (docs/upgrades.md)", cluster.LogStoreWAL, cluster.LogStoreBolt, cluster.LogStoreWAL, cluster.DefaultLogStore))
	fs.DurationVar(&c.raftRTT, "raft-rtt", cluster.LANRoundTrip, fmt.Sprintf("round trip between the two nodes farthest apart (at most %v): Raft's heartbeat and election timeouts are ten of it, "+
		"never under a LAN's 250ms, its leader lease 80%% of that, and --election-wait, unless given, four election timeouts (docs/regions.md)", cluster.MaxRoundTrip))
	fs.DurationVar(&c.snapshotInterval, "raft-snapshot-interval", cluster.DefaultTiming.SnapshotInterval, "how often Raft checks whether to snapshot (each check at a random time up to twice this): a snapshot lets it compact the log and restart or catch up a node from it")
	fs.Uint64Var(&c.snapshotThreshold, "raft-snapshot-threshold", cluster.DefaultTiming.SnapshotThreshold, "log entries since the last snapshot that make a check take one; lower: smaller log and faster restarts, more snapshot writes (each writes the whole state and the series journals)")
	fs.BoolVar(&c.hiloPools, "hilo-pools", true, "grant HiLo ranges from this node's own pool of numbers the cluster reserved to it: no Raft round per range, and ranges keep coming without a quorum until the pool is used up (false: every range through the leader)")
	fs.StringVar(&memoryLimit, "memory-limit", "", "soft limit of the node's memory (e.g. 512MiB): the garbage collector works harder near it; default: GOMEMLIMIT, else 90% of the container's memory limit, else none")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "host:port to serve Prometheus /metrics on (plain HTTP); empty: no metrics")
	fs.BoolVar(&c.pprof, "pprof", false, "also serve Go's profiler at /debug/pprof/ on --metrics-addr")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "PEM certificate of this node: with --tls-key and --tls-ca, TLS for clients and mutual TLS between nodes")
	fs.StringVar(&c.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.StringVar(&c.tlsCA, "tls-ca", "", "PEM CA certificate that signed every node's certificate (and verifies client certificates when presented)")
	fs.StringVar(&tlsClientAuth, "tls-client-auth", tlsconfig.ClientAuthRequest, "client certificates on the client port: request (verify one when given) or require (refuse clients without one signed by --tls-ca); "+
		"a client certificate with OU="+tlsconfig.AdminUnit+" may make admin calls")
	fs.StringVar(&c.adminToken, "admin-token", "", "bearer token admin calls (add/remove node, leader transfer, forced seed, backup, restore) must carry; "+
		"prefer --admin-token-file or IDNODE_ADMIN_TOKEN, a flag shows in ps")
	fs.StringVar(&tokenFile, "admin-token-file", "", "file holding the admin token (one line), instead of --admin-token")
	fs.IntVar(&c.maxConns, "grpc-max-conns", defaultMaxConns, "most connections the gRPC port holds at once; one over it is closed at once")
	fs.Func("grpc-max-streams", fmt.Sprintf("most calls one gRPC connection may have open at once (default %d)", server.DefaultLimits.MaxStreams), uintFlag(&c.limits.MaxStreams))
	fs.Int64Var(&c.limits.MaxCalls, "grpc-max-calls", server.DefaultLimits.MaxCalls, "most calls the gRPC port holds at once over all connections; more are refused RESOURCE_EXHAUSTED (NODE_BUSY)")
	fs.DurationVar(&c.limits.IdleTimeout, "grpc-idle-timeout", server.DefaultLimits.IdleTimeout, "close a gRPC connection that has made no call for this long (clients reconnect when they need to)")
	fs.DurationVar(&c.limits.MaxAge, "grpc-max-conn-age", server.DefaultLimits.MaxAge, "close any gRPC connection after this long (±10%), letting its calls finish for a grace period, so no call is held for ever")
	fs.StringVar(&configFile, "config", "", "TOML file whose keys are these flags' names (data-dir = \"/var/lib/idnode\"); a flag or IDNODE_ variable wins over it")
	fs.BoolVar(&c.showVersion, "version", false, "print the version and exit (also: idnode version)")
	bad := &valueErrors{}
	collectErrors(fs, bad)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, usage)
			return nil, err
		}
		return nil, fmt.Errorf("%w (see idnode -h)", errors.Join(append(bad.errs, err)...))
	}
	if fs.NArg() > 0 {
		bad.errs = append(bad.errs, fmt.Errorf("unexpected argument %q (flags only; see idnode -h)", fs.Arg(0)))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c.adminTokenOnCommandLine = set["admin-token"]
	var known []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "version" {
			return // a command, not a setting: IDNODE_VERSION may well name an image tag
		}
		name := envOfFlag(f.Name)
		known = append(known, name)
		// Set but empty counts: IDNODE_HTTP_ADDR= turns HTTP off like --http-addr "".
		if v, ok := env.lookup(name); ok && !set[f.Name] {
			bad.origin = name
			_ = fs.Set(f.Name, v)
			set[f.Name] = true
		}
	})
	c.warnings = unknownEnvWarnings(env, append(known, testClockVars...))
	c.applyTestClock(env)
	c.applyFastBackups()
	if configFile != "" {
		bad.errs = append(bad.errs, applyConfigFile(fs, configFile, set, bad))
	}
	bad.errs = append(bad.errs, c.readAdminToken(tokenFile))
	cfg, err := c.finish(peers, separator, logLevel, tlsClientAuth, memoryLimit, raftLog, set)
	if err := errors.Join(append(bad.errs, err)...); err != nil {
		return nil, err
	}
	return cfg, nil
}

// printUsage is idnode -h.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, `Usage:
  idnode [flags]          run a node (every flag also reads IDNODE_<FLAG>, e.g. IDNODE_DATA_DIR,
                          and --config FILE; precedence: flag, then IDNODE_<FLAG>, then the file)
  idnode health [flags]   check a running node: exit 0 when it is SERVING (idnode help health)
  idnode version          print the version
  idnode help [command]   this help, or a command's

Flags:`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// finish validates and derives the fields that need more than a flag's own parsing; it
// reports every problem it finds, not only the first.
func (c *config) finish(peers, separator, logLevel, tlsClientAuth, memoryLimit, raftLog string, set map[string]bool) (*config, error) {
	var errs []error
	if err := docid.ValidateNodeTag(c.tag); err != nil {
		errs = append(errs, fmt.Errorf("--tag: %w", err))
	}
	var err error
	if c.separator, err = docid.ParseSeparator(separator); err != nil {
		errs = append(errs, fmt.Errorf("--separator: %w", err))
	}
	if raftLog != "" {
		if c.raftLog, err = cluster.ParseLogStore(raftLog); err != nil {
			errs = append(errs, fmt.Errorf("--raft-log: %w", err))
		}
	}
	if c.maxCount < 1 {
		errs = append(errs, fmt.Errorf("--max-count must be at least 1, got %d", c.maxCount))
	}
	if c.diskSample < node.MinDiskSampleInterval || c.diskSample > node.MaxDiskSampleInterval {
		errs = append(errs, fmt.Errorf("--disk-sample-interval must be %v..%v, got %v", node.MinDiskSampleInterval, node.MaxDiskSampleInterval, c.diskSample))
	}
	if c.identityBatch < 1 {
		errs = append(errs, fmt.Errorf("--identity-batch must be at least 1, got %d", c.identityBatch))
	}
	if err := validRegion(c.region); err != nil {
		errs = append(errs, fmt.Errorf("--region: %w", err))
	}
	if err := validRegion(c.preferredRegion); err != nil {
		errs = append(errs, fmt.Errorf("--preferred-region: %w", err))
	}
	if c.raftTiming, err = cluster.TimingForRoundTrip(c.raftRTT); err != nil {
		errs = append(errs, fmt.Errorf("--raft-rtt: %w", err))
	} else if !set["election-wait"] {
		c.electionWait = c.raftTiming.ElectionWait()
	}
	if c.electionWait <= 0 {
		errs = append(errs, fmt.Errorf("--election-wait must be positive, got %v", c.electionWait))
	}
	if c.clockOffsetWarn < minClockOffsetWarn || c.clockOffsetWarn > maxClockOffsetWarn {
		errs = append(errs, fmt.Errorf("--clock-offset-warn must be from %v to %v, got %v", minClockOffsetWarn, maxClockOffsetWarn, c.clockOffsetWarn))
	}
	if c.replicaCheckInterval < server.MinReplicaCheckInterval {
		errs = append(errs, fmt.Errorf("--replica-check-interval must be at least %v, got %v", server.MinReplicaCheckInterval, c.replicaCheckInterval))
	}
	if c.snapshotInterval < minSnapshotInterval {
		errs = append(errs, fmt.Errorf("--raft-snapshot-interval must be at least %v, got %v", minSnapshotInterval, c.snapshotInterval))
	}
	if c.snapshotThreshold < minSnapshotThreshold {
		errs = append(errs, fmt.Errorf("--raft-snapshot-threshold must be at least %d entries, got %d", minSnapshotThreshold, c.snapshotThreshold))
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format must be text or json, got %q", c.logFormat))
	}
	if err := c.logLevel.UnmarshalText([]byte(logLevel)); err != nil {
		errs = append(errs, fmt.Errorf("--log-level %q: expected one of debug, info, warn or error", logLevel))
	}
	if c.dataDir == "" {
		errs = append(errs, errors.New("--data-dir must not be empty"))
	}
	if c.pprof && c.metricsAddr == "" {
		errs = append(errs, errors.New("--pprof serves the profiler on the metrics endpoint: give --metrics-addr too"))
	}
	if c.pprof && c.metricsAddr != "" && !isLoopbackAddr(c.metricsAddr) {
		errs = append(errs, fmt.Errorf("--pprof serves the profiler on --metrics-addr %s, which is not a loopback address: "+
			"the profiler shows the node's memory and runs CPU profiles for whoever asks, so it is served on loopback only (e.g. --metrics-addr 127.0.0.1:9100)", c.metricsAddr))
	}
	if c.maxConns < 1 || c.limits.MaxCalls < 1 || c.limits.IdleTimeout <= 0 || c.limits.MaxAge <= 0 {
		errs = append(errs, errors.New("--grpc-max-conns, --grpc-max-calls, --grpc-idle-timeout and --grpc-max-conn-age must be positive"))
	}
	if (c.tlsCert != "" || c.tlsKey != "" || c.tlsCA != "") && (c.tlsCert == "" || c.tlsKey == "" || c.tlsCA == "") {
		errs = append(errs, errors.New("--tls-cert, --tls-key and --tls-ca go together: give all three for TLS, or none"))
	}
	if err := c.http.finish(); err != nil {
		errs = append(errs, err)
	}
	if err := c.backups.finish(set); err != nil {
		errs = append(errs, err)
	}
	if c.memoryLimit, err = parseByteSize(memoryLimit); err != nil {
		errs = append(errs, fmt.Errorf("--memory-limit: %w", err))
	}
	if c.tlsClientAuth, err = tlsconfig.ParseClientAuth(tlsClientAuth); err != nil {
		errs = append(errs, fmt.Errorf("--tls-client-auth: %w", err))
	}
	if set["tls-client-auth"] && c.tlsCert == "" {
		errs = append(errs, errors.New("--tls-client-auth is about TLS client certificates: give --tls-cert, --tls-key and --tls-ca too"))
	}
	if c.peers, err = parsePeers(peers); err != nil {
		errs = append(errs, fmt.Errorf("--peers: %w", err))
	}
	if c.join != "" && len(c.peers) > 0 {
		errs = append(errs, errors.New("--join and --peers exclude each other: bootstrap with --peers, or join a running cluster with --join"))
	}
	c.tagSet, c.raftAddrSet, c.httpAddrSet = set["tag"], set["raft-addr"], set["http-addr"]
	if c.grpcAdvertise == "" {
		c.grpcAdvertise = advertisable(c.grpcAddr)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// placeSelf finds this node in --peers: its entry is the address other nodes use, so it is
// the advertised Raft address, and also the one to listen on unless --raft-addr says otherwise
// (e.g. 0.0.0.0:7000 in a container).
func (c *config) placeSelf() error {
	if len(c.peers) == 0 {
		if c.raftAdvertise == "" {
			c.raftAdvertise = advertisable(c.raftAddr)
		}
		return nil
	}
	for _, p := range c.peers {
		if p.ID != c.tag {
			continue
		}
		if c.raftAdvertise != "" && c.raftAdvertise != p.Address {
			return fmt.Errorf("--raft-advertise %s differs from this node's entry %s=%s in --peers", c.raftAdvertise, p.ID, p.Address)
		}
		c.raftAdvertise = p.Address
		if !c.raftAddrSet {
			c.raftAddr = p.Address
		}
		return nil
	}
	return fmt.Errorf("--peers does not list this node's tag %s", c.tag)
}

// parsePeers reads "A=host:port,B=host:port".
func parsePeers(s string) ([]cluster.Peer, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var peers []cluster.Peer
	seenTag, seenAddr := map[string]bool{}, map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		tag, addr, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || addr == "" {
			return nil, fmt.Errorf("entry %q is not TAG=host:port", part)
		}
		if err := docid.ValidateNodeTag(tag); err != nil {
			return nil, fmt.Errorf("entry %q: %w", part, err)
		}
		if seenTag[tag] || seenAddr[addr] {
			return nil, fmt.Errorf("entry %q repeats a tag or an address", part)
		}
		seenTag[tag], seenAddr[addr] = true, true
		peers = append(peers, cluster.Peer{ID: tag, Address: addr})
	}
	return peers, nil
}
