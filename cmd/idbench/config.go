package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idnode/idnode/hilo"
)

// Limits that keep every run bounded, whatever the flags say.
const (
	maxDuration    = 10 * time.Minute // hard cap on a run, --ops runs included
	maxConcurrency = 10000
	maxConns       = 256
	maxCount       = 1_000_000
	maxClaimCount  = 1000 // the server's bound on the IDs of one Claim
	maxNames       = 10_000_000
)

// Targets and strategies.
const (
	targetIdnode   = "idnode"
	targetEtcd     = "etcd"
	targetPostgres = "postgres"

	stratIdentity      = "identity"
	stratIdentityBatch = "identity-batch"
	stratServerSide    = "server-side"
	stratGUID          = "guid"
	stratHiLoRange     = "hilo-range"
	stratClientHiLo    = "client-hilo"
	stratClaim         = "claim"
	stratSeries        = "series" // fiscal series: one Issue per call
	stratPut           = "put"    // etcd only
)

// The forms of the IDs the claim strategy claims (--claim-ids).
const (
	claimNames   = "names"   // <prefix>/<caller>-<seq>
	claimNumbers = "numbers" // <prefix>/<n>, identity-shaped, n from claimNumberBase up
)

// How idnode callers reach the nodes (--via), for the strategies that call Generate.
const (
	viaRoundRobin = "round-robin" // each caller on a raw gRPC connection to one node; followers relay
	viaGoClient   = "go-client"   // the Go client (client/): identities go to the leader it learned
)

// The calls that take identities through the Go client (--identity-call, with --via go-client).
const (
	identityCallNext     = "next-identity" // client.NextIdentity: calls for one value fold together
	identityCallGenerate = "generate"      // client.Generate("<prefix>|", count): the only call an opaque collection answers
)

// The strategies of each target, in the order -h shows them.
var (
	idnodeStrategies   = []string{stratIdentity, stratIdentityBatch, stratServerSide, stratGUID, stratHiLoRange, stratClientHiLo, stratClaim, stratSeries}
	etcdStrategies     = []string{stratIdentity, stratPut}
	postgresStrategies = []string{stratIdentity}
)

// config is one run, from the command line.
type config struct {
	target    string
	strategy  string
	nodes     []string // idnode gRPC addresses
	endpoints []string // etcd client URLs or host:port; postgres: the server's host:port
	dsn       string   // PostgreSQL connection string
	via       string   // idnode Generate strategies: round-robin or go-client; else ""
	// identityCall is the Go client's call for identities (--via go-client, identity and
	// identity-batch): next-identity or generate; else "".
	identityCall string
	concurrency  int
	conns        int
	duration     time.Duration // 0: until ops (bounded by maxDuration)
	ops          int64         // 0: until duration
	count        int64         // Generate count (identity-batch, server-side), IDs per Claim (claim)
	rangeSize    int64         // hilo-range: the range size asked for (0: the server's first range)
	ramp         *ramp         // client-hilo: an open-loop rate that doubles (nil: closed loop)
	claimIDs     string        // claim: names or numbers
	names        int64         // identity, identity-batch, hilo-range: calls cycle over this many names (0: the prefix alone)
	prefix       string
	timeout      time.Duration // per call
	connect      time.Duration // connecting before the run
	jsonOut      bool
	progress     bool
	label        string
	region       string            // the Go client's region (--region); "" for none
	nodeRegions  map[string]string // --node-regions: address → region
}

// limit is how long the run may last: --duration, or the hard cap for an --ops run.
func (c *config) limit() time.Duration {
	if c.duration > 0 {
		return c.duration
	}
	return maxDuration
}

// usesCount reports whether strategy takes --count: IDs per call.
func usesCount(strategy string) bool {
	return strategy == stratIdentityBatch || strategy == stratServerSide || strategy == stratClaim
}

// usesVia reports whether strategy calls Generate, which --via can route either way.
func usesVia(strategy string) bool {
	return strategy == stratIdentity || strategy == stratIdentityBatch || strategy == stratServerSide || strategy == stratGUID
}

// usesNames reports whether strategy takes --names: calls spread over many counters or tags.
func usesNames(strategy string) bool {
	return strategy == stratIdentity || strategy == stratIdentityBatch || strategy == stratHiLoRange || strategy == stratSeries
}

// idsPerOp is how many IDs one successful call returns (or claims) for the fixed-size strategies.
func (c *config) idsPerOp() int64 {
	if usesCount(c.strategy) {
		return c.count
	}
	return 1
}

// describe is the one-line name of the workload, e.g. "idnode identity".
func (c *config) describe() string {
	ramp := ""
	if c.ramp != nil {
		ramp = c.ramp.String()
	}
	claimIDs := ""
	if c.strategy == stratClaim {
		claimIDs = c.claimIDs
	}
	s := workloadTitle(c.target, c.strategy, c.via, c.identityCall, c.count, claimIDs, c.rangeSize, ramp)
	if c.names > 0 {
		s += fmt.Sprintf(" names=%d", c.names)
	}
	if c.region != "" {
		s += " region=" + c.region
	}
	return s
}

// workloadTitle names a workload in one line, as a run starts (config.describe) and as its
// report says (writeText).
func workloadTitle(target, strategy, via, identityCall string, count int64, claimIDs string, rangeSize int64, ramp string) string {
	s := target + " " + strategy
	switch {
	case target == targetEtcd && strategy == stratIdentity:
		s = "etcd identity (CAS counter)"
	case target == targetPostgres:
		s = "postgres identity (sequence nextval)"
	}
	if via != "" {
		s += " via " + via
	}
	if identityCall == identityCallGenerate {
		s += " call=generate"
	}
	if usesCount(strategy) {
		s += fmt.Sprintf(" count=%d", count)
	}
	if claimIDs != "" && claimIDs != claimNames {
		s += " ids=" + claimIDs
	}
	if rangeSize > 0 {
		s += fmt.Sprintf(" size=%d", rangeSize)
	}
	if ramp != "" {
		s += " ramp=" + ramp
	}
	return s
}

const usageHead = `Usage: idbench [flags]          load a running idnode or etcd cluster, or a PostgreSQL server
       idbench table FILE...     render JSON results (one per line) as markdown

Every run is bounded: give --duration (at most 10m) or --ops (and it still stops at 10m), or
for client-hilo a --ramp, which lasts as long as its steps.

Strategies (--target idnode): identity     Generate{id:"<prefix>|"}
                              identity-batch Generate{id:"<prefix>|", count}
                              server-side  Generate{id:"<prefix>/", count}
                              guid         Generate{id:""}
                              hilo-range   NextHiLo{tag:"<prefix>"}: one range, of --range-size numbers
                                           when given (else the server's first range, 32)
                              client-hilo  client.NextID(ctx, "<prefix>"): HiLo IDs from the Go client
                                           (github.com/idnode/idnode/client), every ID checked unique
                              claim        Claim{ids: count new IDs}: --claim-ids names claims
                                           "<prefix>/<caller>-<seq>", numbers "<prefix>/<n>" with n
                                           from 10^12 up (identity-shaped, far above any counter);
                                           a second run on the same prefix finds them taken
                              series       Issue{series:"<prefix>"}: the next number of a fiscal
                                           series (created if missing), a new request id per call
Strategies (--target etcd):   identity     consecutive counter: Get, then
                                           Txn(If ModRevision==rev).Then(Put n+1), retry on conflict
                              put          Put of distinct keys (one replicated write per op)
                              (--strategy etcd-put is --target etcd --strategy put)
Strategy (--target postgres): identity     SELECT nextval('<prefix>'): a sequence (created if
                                           missing), one connection per caller; at the end idbench
                                           checks that successes equal the sequence's advance

Routes (--via, idnode identity, identity-batch, server-side, guid):
                              round-robin  caller i on a raw gRPC connection to node i mod N, as
                                           ghz or grpcurl would; a follower relays to the leader
                              go-client    the Go client (github.com/idnode/idnode/client): calls
                                           that need the leader go there, the others are spread;
                                           identities by client.NextIdentity, or with
                                           --identity-call generate by client.Generate("<prefix>|"),
                                           the call an opaque collection answers (its 13-symbol forms)

Flags:
`

// parseConfig reads the command line. It refuses unbounded runs and unknown strategies.
func parseConfig(args []string, usage io.Writer) (*config, error) {
	fs := flag.NewFlagSet("idbench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		c                                   config
		nodes, endpoints, ramp, nodeRegions string
	)
	fs.StringVar(&c.target, "target", targetIdnode, "idnode or etcd")
	fs.StringVar(&c.strategy, "strategy", stratIdentity, "what each call does (see above)")
	fs.StringVar(&nodes, "nodes", "127.0.0.1:7070", "idnode gRPC addresses host:port,...; callers are spread over them")
	fs.StringVar(&endpoints, "endpoints", "127.0.0.1:2379", "etcd client endpoints host:port,... (or http://host:port)")
	fs.StringVar(&c.dsn, "dsn", "postgres://127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL connection string (URL or key=value) for --target postgres")
	fs.StringVar(&c.via, "via", viaRoundRobin, "how idnode callers reach the nodes: round-robin or go-client (see above)")
	fs.StringVar(&c.identityCall, "identity-call", identityCallNext, "identity and identity-batch --via go-client: the Go client's call, next-identity (client.NextIdentity) or generate (client.Generate(\"<prefix>|\"), the call an opaque collection answers)")
	fs.IntVar(&c.concurrency, "concurrency", 16, "concurrent callers, each making one call at a time")
	fs.IntVar(&c.conns, "conns", 1, "gRPC connections per node (etcd: clients over all endpoints; go-client: clients); callers share them round-robin; postgres: not used, every caller has its own connection")
	fs.DurationVar(&c.duration, "duration", 0, "how long to run (at most 10m); this or --ops is required")
	fs.Int64Var(&c.ops, "ops", 0, "stop after this many successful calls; this or --duration is required")
	fs.Int64Var(&c.count, "count", 0, "IDs per call for identity-batch (default 100), server-side (default 1) and claim (default 1, at most 1000)")
	fs.Int64Var(&c.rangeSize, "range-size", 0, "hilo-range: numbers per range, 32 to 1048576 (sent as last_batch_size without last_range_at, which the range policy grants as is; every range is checked to be that size); 0: the server's first range size")
	fs.StringVar(&ramp, "ramp", "", "client-hilo: FROM:TO:STEP, calls/s of all callers together starting at FROM and doubling every STEP up to TO, e.g. 1000:1000000:2s; the run lasts until TO's step ends (no --duration or --ops)")
	fs.StringVar(&c.claimIDs, "claim-ids", claimNames, "claim: the IDs claimed, names (<prefix>/<caller>-<seq>) or numbers (<prefix>/<n>, identity-shaped)")
	fs.Int64Var(&c.names, "names", 0, "identity, identity-batch, hilo-range, series: spread the calls over this many counters or tags, <prefix>-0 … <prefix>-<names-1>, taken in turn by all callers (with --ops names, each is created once); 0: the prefix alone")
	fs.StringVar(&c.prefix, "prefix", "bench", "identity name / server-side prefix / HiLo tag or collection; for etcd, keys go under idbench/<prefix>/")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Second, "deadline of one call")
	fs.DurationVar(&c.connect, "connect-timeout", 10*time.Second, "how long to wait for the connections before the run starts")
	fs.BoolVar(&c.jsonOut, "json", false, "print the result as one JSON object on stdout")
	fs.BoolVar(&c.progress, "progress", true, "print a progress line to stderr every second")
	fs.StringVar(&c.label, "label", "", "free text carried into the result (for idbench table)")
	fs.StringVar(&c.region, "region", "", "the Go client's region (--via go-client, client-hilo): what any node answers goes to a node of it first; needs --node-regions")
	fs.StringVar(&nodeRegions, "node-regions", "", "ADDR=REGION,...: the region of each of --nodes, for --region (a node left out is in another region)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(usage, usageHead)
			fs.SetOutput(usage)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, fmt.Errorf("%w (see idbench -h)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags only; see idbench -h)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := c.finishRamp(ramp, set); err != nil {
		return nil, err
	}
	if err := c.finish(nodes, endpoints, set); err != nil {
		return nil, err
	}
	if err := c.finishRegion(nodeRegions, set); err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *config) finish(nodes, endpoints string, set map[string]bool) error {
	if c.strategy == "etcd-put" {
		if set["target"] && c.target != targetEtcd {
			return fmt.Errorf("--strategy etcd-put runs against etcd, not --target %s", c.target)
		}
		c.target, c.strategy = targetEtcd, stratPut
	}
	// Each target takes its own address flag and refuses the others', so a command line that
	// mixes them up fails instead of loading a default address.
	var known []string
	addrFlags := []struct{ target, flag string }{{targetIdnode, "nodes"}, {targetEtcd, "endpoints"}, {targetPostgres, "dsn"}}
	switch c.target {
	case targetIdnode:
		known = idnodeStrategies
	case targetEtcd:
		known = etcdStrategies
	case targetPostgres:
		known = postgresStrategies
		if set["conns"] {
			return errors.New("--conns does not apply to --target postgres: every caller has its own connection")
		}
	default:
		return fmt.Errorf("--target must be idnode, etcd or postgres, got %q", c.target)
	}
	for _, a := range addrFlags {
		if a.target != c.target && set[a.flag] {
			return fmt.Errorf("--%s is for --target %s, not --target %s", a.flag, a.target, c.target)
		}
	}
	if !slices.Contains(known, c.strategy) {
		return fmt.Errorf("unknown strategy %q for --target %s (known: %s)", c.strategy, c.target, strings.Join(known, ", "))
	}

	// Bounded: a duration, an op count, or both; never neither, never past the cap.
	if c.duration == 0 && c.ops == 0 {
		return fmt.Errorf("refusing an unbounded run: give --duration (at most %v) or --ops", maxDuration)
	}
	if c.duration < 0 || c.duration > maxDuration {
		return fmt.Errorf("--duration must be between 0 and %v, got %v", maxDuration, c.duration)
	}
	if c.ops < 0 {
		return fmt.Errorf("--ops must not be negative, got %d", c.ops)
	}
	if c.concurrency < 1 || c.concurrency > maxConcurrency {
		return fmt.Errorf("--concurrency must be between 1 and %d, got %d", maxConcurrency, c.concurrency)
	}
	if c.conns < 1 || c.conns > maxConns {
		return fmt.Errorf("--conns must be between 1 and %d, got %d", maxConns, c.conns)
	}
	if c.timeout <= 0 || c.timeout > time.Minute {
		return fmt.Errorf("--timeout must be between 0 and 1m, got %v", c.timeout)
	}
	if c.connect <= 0 || c.connect > 5*time.Minute {
		return fmt.Errorf("--connect-timeout must be between 0 and 5m, got %v", c.connect)
	}

	counted := c.target == targetIdnode && usesCount(c.strategy)
	switch {
	case !counted && set["count"]:
		return fmt.Errorf("--count applies to identity-batch, server-side and claim only, not %s %s", c.target, c.strategy)
	case c.count == 0 && c.strategy == stratIdentityBatch:
		c.count = 100
	case c.count == 0:
		c.count = 1
	}
	if c.count < 1 || c.count > maxCount {
		return fmt.Errorf("--count must be between 1 and %d, got %d", maxCount, c.count)
	}
	if c.strategy == stratClaim && c.count > maxClaimCount {
		return fmt.Errorf("--count of claim must be between 1 and %d (the most IDs one Claim takes), got %d", maxClaimCount, c.count)
	}
	switch {
	case c.strategy != stratClaim && set["claim-ids"]:
		return fmt.Errorf("--claim-ids applies to the claim strategy only, not %s %s", c.target, c.strategy)
	case c.claimIDs != claimNames && c.claimIDs != claimNumbers:
		return fmt.Errorf("--claim-ids must be %s or %s, got %q", claimNames, claimNumbers, c.claimIDs)
	}
	switch pol := hilo.DefaultPolicy; {
	case c.strategy != stratHiLoRange && set["range-size"]:
		return fmt.Errorf("--range-size applies to the hilo-range strategy only, not %s %s", c.target, c.strategy)
	case c.rangeSize != 0 && (c.rangeSize < pol.Min || c.rangeSize > pol.Max):
		return fmt.Errorf("--range-size must be between %d and %d (the range policy's bounds), got %d", pol.Min, pol.Max, c.rangeSize)
	}
	switch {
	case c.target != targetIdnode || !usesVia(c.strategy):
		if set["via"] {
			return fmt.Errorf("--via applies to idnode identity, identity-batch, server-side and guid only, not %s %s", c.target, c.strategy)
		}
		c.via = ""
	case c.via != viaRoundRobin && c.via != viaGoClient:
		return fmt.Errorf("--via must be %s or %s, got %q", viaRoundRobin, viaGoClient, c.via)
	}
	switch {
	case c.via != viaGoClient || (c.strategy != stratIdentity && c.strategy != stratIdentityBatch):
		if set["identity-call"] {
			return fmt.Errorf("--identity-call applies to identity and identity-batch --via go-client only, not %s %s via %q", c.target, c.strategy, c.via)
		}
		c.identityCall = ""
	case c.identityCall != identityCallNext && c.identityCall != identityCallGenerate:
		return fmt.Errorf("--identity-call must be %s or %s, got %q", identityCallNext, identityCallGenerate, c.identityCall)
	}
	switch {
	case c.names != 0 && (c.target != targetIdnode || !usesNames(c.strategy)):
		return fmt.Errorf("--names applies to identity, identity-batch and hilo-range only, not %s %s", c.target, c.strategy)
	case c.names < 0 || c.names > maxNames:
		return fmt.Errorf("--names must be between 0 and %d, got %d", maxNames, c.names)
	}
	if c.prefix == "" || strings.ContainsAny(c.prefix, "|\\") {
		return fmt.Errorf("--prefix must be non-empty without | or \\, got %q", c.prefix)
	}

	var err error
	switch c.target {
	case targetIdnode:
		c.nodes, err = splitAddrs("--nodes", nodes, false)
	case targetEtcd:
		c.endpoints, err = splitAddrs("--endpoints", endpoints, true)
	case targetPostgres:
		// The server's address stands in the result's endpoints; the DSN itself may hold a password.
		var pc *pgx.ConnConfig
		if pc, err = pgx.ParseConfig(c.dsn); err != nil {
			return fmt.Errorf("--dsn: %w (e.g. postgres://user@127.0.0.1:5432/db?sslmode=disable)", err)
		}
		c.endpoints = []string{net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port)))}
		c.conns = c.concurrency // one per caller: the result says how many the server served
	}
	return err
}

// finishRamp reads --ramp; a ramp sets the run's duration, so it comes before finish checks
// that the run is bounded.
func (c *config) finishRamp(ramp string, set map[string]bool) error {
	if !set["ramp"] {
		return nil
	}
	if c.strategy != stratClientHiLo {
		return fmt.Errorf("--ramp applies to the client-hilo strategy only, not %s", c.strategy)
	}
	if set["duration"] || set["ops"] {
		return errors.New("--ramp sets how long the run lasts: leave out --duration and --ops")
	}
	r, err := parseRamp(ramp)
	if err != nil {
		return err
	}
	c.ramp, c.duration = r, r.length()
	return nil
}

// splitAddrs reads "host:port,host:port". Only loopback or named hosts are the caller's
// business; the check here is just that each entry is an address.
func splitAddrs(flagName, s string, urlsOK bool) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		hostport := part
		if urlsOK {
			if _, rest, ok := strings.Cut(part, "://"); ok {
				hostport = rest
			}
		}
		if _, _, err := net.SplitHostPort(hostport); err != nil {
			return nil, fmt.Errorf("%s: %q is not host:port", flagName, part)
		}
		out = append(out, part)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no addresses", flagName)
	}
	return out, nil
}
