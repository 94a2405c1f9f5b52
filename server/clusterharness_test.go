package server_test

// An in-process cluster for tests: n idnode nodes, each with its own data dir, Raft over
// hashicorp/raft's in-memory transport and a real gRPC server on a loopback port (or, for a
// test in virtual time, on an in-memory network: newVirtualTestCluster), each assembled by
// node.Start as cmd/idnode's nodes are. A network value can cut the cluster into
// groups: Raft links between groups are disconnected in both directions, and the gRPC links
// nodes use to forward to the leader are refused at dial time and broken if they already
// exist. Test clients talk to a node
// over their own loopback connection, so a client always stays on its node's side.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/helpers/memnet"
	"github.com/idnode/idnode/test/helpers/poll"
)

// Harness time limits. Every wait in the harness is a poll bounded by one of these.
const (
	harnessPoll      = 20 * time.Millisecond
	harnessRPC       = time.Second      // one control RPC (Status, health)
	startupTimeout   = 20 * time.Second // a fresh cluster until it has a leader and serves
	convergeTimeout  = 20 * time.Second // after a heal or partition, until a group agrees again
	harnessLogLevel  = slog.LevelWarn
	harnessMaxConns  = 1024                   // connections per client port, as cmd/idnode's default
	inmemRaftTimeout = 500 * time.Millisecond // raft's own default for the in-memory transport
)

// harnessRoundTrip is the round trip the harness's Raft timing is made for. The LAN default
// (1 ms) gives a leader lease of 200 ms, which a machine running the race detector beside the
// Docker suites overruns: the leader steps down mid-test and calls fail UNAVAILABLE. The
// timing of a 50 ms link (idnode --raft-rtt 50ms) doubles every timeout and stays a tuning
// operators run.
const harnessRoundTrip = 50 * time.Millisecond

// harnessTiming is the Raft timing of test clusters: production's for harnessRoundTrip, with
// snapshots taken often so that snapshotting runs concurrently with the load too.
var harnessTiming = func() cluster.Timing {
	t, err := cluster.TimingForRoundTrip(harnessRoundTrip)
	if err != nil {
		panic(err)
	}
	t.SnapshotInterval = time.Second
	t.SnapshotThreshold = 512
	return t
}()

// testNode is one node of a testCluster.
type testNode struct {
	Tag      string
	Dir      string
	RaftAddr raft.ServerAddress
	GRPCAddr string
	// InternalAddr is where the node serves its internal services: production shares the
	// Raft port, which the in-memory transport has not, so the harness's dialer takes a dial
	// of RaftAddr there.
	InternalAddr string
	Trans        *raft.InmemTransport
	Node         *cluster.Node

	running *node.Node       // the node as node.Start assembled it
	ctl     *grpc.ClientConn // the harness's own control connection (status, health)
}

// testCluster is n nodes tagged A, B, C, … bootstrapped together from one peer list.
type testCluster struct {
	t     testing.TB
	Net   *network
	Nodes []*testNode
	byTag map[string]*testNode
}

// newTestCluster starts n nodes and returns once every node serves (health "" SERVING: a leader
// is known and the node is registered). t.Cleanup shuts everything down.
func newTestCluster(t testing.TB, n int) *testCluster {
	t.Helper()
	return newTestClusterWith(t, n, nil)
}

// newTestClusterWith is newTestCluster with each node's server config passed through sc.
func newTestClusterWith(t testing.TB, n int, sc func(server.Config) server.Config) *testCluster {
	t.Helper()
	return newTestClusterConfigured(t, n, func(c *node.Config) { c.ServerConfig = sc })
}

// newTestClusterConfigured is newTestCluster with each node's config passed through configure
// before the node starts.
func newTestClusterConfigured(t testing.TB, n int, configure func(*node.Config)) *testCluster {
	t.Helper()
	return startTestCluster(t, n, configure, nil)
}

// newVirtualTestCluster is newTestCluster for a test inside a testing/synctest bubble, where
// elections and leases run in virtual time: the nodes and the harness's clients listen and
// dial on an in-memory network, since a socket would stop the bubble's clock (memnet).
// Clients that dial a node's GRPCAddr themselves must use the cluster's DialOptions.
func newVirtualTestCluster(t *testing.T, n int) *testCluster {
	t.Helper()
	return newVirtualTestClusterConfigured(t, n, func(*node.Config) {})
}

// newVirtualTestClusterWith is newVirtualTestCluster with each node's server config passed
// through sc.
func newVirtualTestClusterWith(t *testing.T, n int, sc func(server.Config) server.Config) *testCluster {
	t.Helper()
	return newVirtualTestClusterConfigured(t, n, func(c *node.Config) { c.ServerConfig = sc })
}

// newVirtualTestClusterConfigured is newVirtualTestCluster with each node's config passed
// through configure before the node starts. configure must not give a node a socket of its
// own (an HTTP address, say): a goroutine waiting on a socket stops the bubble's clock.
func newVirtualTestClusterConfigured(t testing.TB, n int, configure func(*node.Config)) *testCluster {
	t.Helper()
	// A bubble's clock starts at midnight UTC on 2000-01-01, before the epochs numeric IDs
	// count from (the custom layout's is 2026-01-01), where a worker's lease would cover no
	// tick. Nothing of the bubble waits yet, so the sleep moves its clock there at once.
	if d := time.Until(virtualClusterEra); d > 0 {
		time.Sleep(d)
	}
	return startTestCluster(t, n, configure, memnet.New())
}

// virtualClusterEra is the earliest time a virtual cluster starts at.
var virtualClusterEra = time.Date(2027, time.January, 1, 0, 0, 0, 0, time.UTC)

// startTestCluster starts n nodes on mem, or on loopback TCP when mem is nil.
func startTestCluster(t testing.TB, n int, configure func(*node.Config), mem *memnet.Network) *testCluster {
	t.Helper()
	if n < 1 || n > 26 {
		t.Fatalf("newTestCluster: %d nodes", n)
	}
	// A fuzz target may not call f.Log (testing panics), and the nodes log from inside it (the
	// audit log of seeds, for one): a fuzz test's nodes log nowhere.
	_, fuzz := t.(*testing.F)
	logs := &testLogWriter{t: t, stopped: fuzz}
	t.Cleanup(logs.stop) // registered first, so it runs last: nothing logs into a finished test
	c := &testCluster{t: t, Net: newNetwork(mem), byTag: make(map[string]*testNode)}
	var peers []cluster.Peer
	for i := range n {
		tag := string(rune('A' + i))
		tn := &testNode{Tag: tag, Dir: t.TempDir(), RaftAddr: raft.ServerAddress("inmem-" + tag + ":7000")}
		_, tn.Trans = raft.NewInmemTransportWithTimeout(tn.RaftAddr, inmemRaftTimeout)
		c.Nodes = append(c.Nodes, tn)
		c.byTag[tag] = tn
		peers = append(peers, cluster.Peer{ID: tag, Address: string(tn.RaftAddr)})
	}
	// Listeners first: every node's gRPC address is in its config from the start.
	lis, internal := make([]net.Listener, n), make([]net.Listener, n)
	for i, tn := range c.Nodes {
		for _, l := range []*net.Listener{&lis[i], &internal[i]} {
			var err error
			if *l, err = c.Net.listen(); err != nil {
				t.Fatalf("listen for node %s: %v", tn.Tag, err)
			}
		}
		tn.GRPCAddr, tn.InternalAddr = lis[i].Addr().String(), internal[i].Addr().String()
		c.Net.add(tn)
	}
	c.Net.heal() // connect every transport to every other, both ways
	t.Cleanup(c.shutdown)
	for i, tn := range c.Nodes {
		log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: harnessLogLevel})).With("node", tn.Tag)
		// The in-memory transport takes peers by Raft server ID as given, so each node's ID is
		// its bare tag: the ID of a data dir made before IDs carried the incarnation, which
		// node.json says by holding no raft_id.
		st := datadir.NewNodeState(tn.Tag)
		st.RaftID = ""
		if err := datadir.SaveNodeState(tn.Dir, st); err != nil {
			t.Fatalf("node state of node %s: %v", tn.Tag, err)
		}
		nc := node.Config{
			DataDir: tn.Dir, Tag: tn.Tag, TagSet: true, Separator: docid.DefaultSeparator,
			GRPCListener: lis[i], GRPCAdvertise: tn.GRPCAddr,
			RaftAddr: string(tn.RaftAddr), Peers: peers,
			MaxConns:  harnessMaxConns,
			Logger:    log,
			Transport: tn.Trans, InternalListener: internal[i], Timing: harnessTiming,
			Dial:          c.Net.dialer(tn.Tag),
			ServerOptions: []grpc.ServerOption{grpc.WaitForHandlers(true)},
		}
		configure(&nc)
		withHarnessLookup(&nc)
		n, err := node.Start(context.Background(), nc)
		if err != nil {
			lis[i].Close()
			internal[i].Close()
			t.Fatalf("start node %s: %v", tn.Tag, err)
		}
		tn.running, tn.Node = n, n.Cluster()
		tn.ctl, err = grpc.NewClient("passthrough:///"+tn.GRPCAddr, c.DialOptions()...)
		if err != nil {
			t.Fatalf("control connection to node %s: %v", tn.Tag, err)
		}
	}
	c.waitLeader(startupTimeout, c.Tags()...)
	c.waitServing(startupTimeout, c.Tags()...)
	return c
}

// shutdown stops every node the way cmd/idnode does, after cutting every link so no node
// waits on a peer that is already gone.
func (c *testCluster) shutdown() {
	c.Net.isolateAll()
	var wg sync.WaitGroup
	for _, tn := range c.Nodes {
		wg.Go(func() {
			if tn.ctl != nil {
				tn.ctl.Close()
			}
			if tn.running != nil {
				if err := tn.running.Close(); err != nil {
					c.t.Errorf("stop node %s: %v", tn.Tag, err)
				}
			}
		})
	}
	wg.Wait()
	if c.Net.mem != nil {
		// A bubble's test may not end while a goroutine of its runs, and a follower's relays
		// of identity batches that were in flight at Close outlive it until they give up
		// waiting for another leader. A virtual minute lets them end and takes no wall time;
		// a goroutine that outlives it is a leak, and synctest fails the test for it.
		time.Sleep(time.Minute)
	}
}

// Tags lists the node tags in order.
func (c *testCluster) Tags() []string {
	tags := make([]string, len(c.Nodes))
	for i, tn := range c.Nodes {
		tags[i] = tn.Tag
	}
	return tags
}

// Node returns the node with tag.
func (c *testCluster) Node(tag string) *testNode {
	tn, ok := c.byTag[tag]
	if !ok {
		c.t.Fatalf("no node %q in the cluster", tag)
	}
	return tn
}

// Dial opens a client connection of its own to the node with tag, closed at the test's end.
func (c *testCluster) Dial(t testing.TB, tag string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient("passthrough:///"+c.Node(tag).GRPCAddr, c.DialOptions()...)
	if err != nil {
		t.Fatalf("dial node %s: %v", tag, err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// DialOptions are what a client needs to reach the nodes' addresses: plaintext, and on an
// in-memory cluster its network's dialer.
func (c *testCluster) DialOptions() []grpc.DialOption {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if c.Net.mem != nil {
		opts = append(opts, grpc.WithContextDialer(c.Net.mem.Dial))
	}
	return opts
}

// Status asks node tag for its own view of the cluster (consistent=false).
func (c *testCluster) Status(tag string) (*idnodev1.StatusResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), harnessRPC)
	defer cancel()
	return idnodev1.NewClusterServiceClient(c.Node(tag).ctl).Status(ctx, &idnodev1.StatusRequest{})
}

// Health asks node tag's health service about service.
func (c *testCluster) Health(tag, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	ctx, cancel := context.WithTimeout(context.Background(), harnessRPC)
	defer cancel()
	resp, err := healthpb.NewHealthClient(c.Node(tag).ctl).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return healthpb.HealthCheckResponse_UNKNOWN, err
	}
	return resp.GetStatus(), nil
}

// waitLeader polls Status on the nodes tags until all of them name the same leader, that leader
// is one of them and it reports itself as leader. It returns the leader's tag.
func (c *testCluster) waitLeader(timeout time.Duration, tags ...string) string {
	c.t.Helper()
	var leader string
	waitFor(c.t, fmt.Sprintf("a leader among %v", tags), timeout, func() (bool, string) {
		leader = ""
		for _, tag := range tags {
			st, err := c.Status(tag)
			if err != nil {
				return false, fmt.Sprintf("status of %s: %v", tag, err)
			}
			switch {
			case st.GetLeader() == "":
				return false, fmt.Sprintf("%s knows no leader", tag)
			case leader == "":
				leader = st.GetLeader()
			case st.GetLeader() != leader:
				return false, fmt.Sprintf("%s sees leader %s, another node sees %s", tag, st.GetLeader(), leader)
			}
		}
		if !slices.Contains(tags, leader) {
			return false, fmt.Sprintf("leader %s is outside the group", leader)
		}
		st, err := c.Status(leader)
		if err != nil {
			return false, fmt.Sprintf("status of leader %s: %v", leader, err)
		}
		for _, ns := range st.GetNodes() {
			if ns.GetTag() == leader && ns.GetState() != "leader" {
				return false, fmt.Sprintf("%s is named leader but is %s", leader, ns.GetState())
			}
		}
		return true, ""
	})
	return leader
}

// waitServing polls the health service "" on the nodes tags until all are SERVING.
func (c *testCluster) waitServing(timeout time.Duration, tags ...string) {
	c.t.Helper()
	waitFor(c.t, fmt.Sprintf("health SERVING on %v", tags), timeout, func() (bool, string) {
		for _, tag := range tags {
			st, err := c.Health(tag, "")
			if err != nil {
				return false, fmt.Sprintf("health of %s: %v", tag, err)
			}
			if st != healthpb.HealthCheckResponse_SERVING {
				return false, fmt.Sprintf("%s is %s", tag, st)
			}
		}
		return true, ""
	})
}

// Partition cuts the cluster into groups (every tag in exactly one); Heal joins it again.
func (c *testCluster) Partition(groups ...[]string) {
	c.t.Helper()
	if err := c.Net.partition(groups...); err != nil {
		c.t.Fatal(err)
	}
}

func (c *testCluster) Heal() { c.Net.heal() }

// waitFor polls cond every harnessPoll until it holds, failing the test after timeout with the
// last reason cond gave.
func waitFor(t testing.TB, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	poll.Until(t, what, timeout, harnessPoll, func() error {
		if ok, why := cond(); !ok {
			return errors.New(why)
		}
		return nil
	})
}

// network decides which nodes can reach which. Nodes in the same group are connected; nodes
// in different groups are not, for Raft (in-memory transport, both directions) and for the
// gRPC links nodes open to each other (refused at dial, existing ones broken).
type network struct {
	mu      sync.Mutex
	nodes   map[string]*testNode
	byGRPC  map[string]string // gRPC address, or Raft address for internal calls → tag
	groupOf map[string]int
	conns   map[link]map[*trackedConn]struct{}
	refused map[link]int    // dials refused, per link, for tests of the harness itself
	mem     *memnet.Network // nil: the nodes listen and dial on loopback TCP
}

// link is one direction between two nodes: from dials to.
type link struct{ from, to string }

// errPartitioned is what a refused dial returns.
var errPartitioned = errors.New("network partition: the target node is in another group")

// harnessLookup resolves what the harness's addresses hold: IP literals, and no name (the
// nodes' Raft hosts, inmem-A and so on, are the harness's own). It asks no DNS server, so a
// test sends nothing off the machine, and it shares no lookup between clusters, which two
// testing/synctest bubbles may not (server.Config.LookupHost).
func harnessLookup(_ context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// withHarnessLookup has the node's server resolve with harnessLookup, under whatever
// ServerConfig the test gave.
func withHarnessLookup(nc *node.Config) {
	given := nc.ServerConfig
	nc.ServerConfig = func(sc server.Config) server.Config {
		sc.LookupHost = harnessLookup
		if given != nil {
			sc = given(sc)
		}
		return sc
	}
}

func newNetwork(mem *memnet.Network) *network {
	return &network{
		mem:     mem,
		nodes:   make(map[string]*testNode),
		byGRPC:  make(map[string]string),
		groupOf: make(map[string]int),
		conns:   make(map[link]map[*trackedConn]struct{}),
		refused: make(map[link]int),
	}
}

// listen opens a node's listener on the network.
func (nw *network) listen() (net.Listener, error) {
	if nw.mem != nil {
		return nw.mem.Listen(), nil
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// dial connects to a listener's address.
func (nw *network) dial(ctx context.Context, addr string) (net.Conn, error) {
	if nw.mem != nil {
		return nw.mem.Dial(ctx, addr)
	}
	return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
}

func (nw *network) add(tn *testNode) {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	nw.nodes[tn.Tag] = tn
	nw.byGRPC[tn.GRPCAddr] = tn.Tag
	nw.byGRPC[string(tn.RaftAddr)] = tn.Tag
	nw.groupOf[tn.Tag] = 0
}

// partition puts each listed group in a group of its own; every node must be listed once.
func (nw *network) partition(groups ...[]string) error {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	next := make(map[string]int)
	for g, tags := range groups {
		for _, tag := range tags {
			if _, ok := nw.nodes[tag]; !ok {
				return fmt.Errorf("partition: no node %q", tag)
			}
			if _, dup := next[tag]; dup {
				return fmt.Errorf("partition: node %q is in two groups", tag)
			}
			next[tag] = g
		}
	}
	if len(next) != len(nw.nodes) {
		return fmt.Errorf("partition: %v does not list each of the %d nodes", groups, len(nw.nodes))
	}
	nw.groupOf = next
	nw.applyLocked()
	return nil
}

// heal puts every node back in one group.
func (nw *network) heal() {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	for tag := range nw.nodes {
		nw.groupOf[tag] = 0
	}
	nw.applyLocked()
}

// isolateAll cuts every link (for shutdown).
func (nw *network) isolateAll() {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	i := 0
	for tag := range nw.nodes {
		nw.groupOf[tag] = i
		i++
	}
	nw.applyLocked()
}

// applyLocked makes the transports and connections match groupOf.
func (nw *network) applyLocked() {
	for a, na := range nw.nodes {
		for b, nb := range nw.nodes {
			if a == b {
				continue
			}
			if nw.groupOf[a] == nw.groupOf[b] {
				na.Trans.Connect(nb.RaftAddr, nb.Trans)
				continue
			}
			na.Trans.Disconnect(nb.RaftAddr)
			l := link{a, b}
			for tc := range nw.conns[l] {
				tc.Conn.Close()
			}
			delete(nw.conns, l)
		}
	}
}

// Reachable reports whether from can currently reach to.
func (nw *network) Reachable(from, to string) bool {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.groupOf[from] == nw.groupOf[to]
}

// Refused is how many dials from → to the network has refused.
func (nw *network) Refused(from, to string) int {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.refused[link{from, to}]
}

// Live is how many connections from → to are open.
func (nw *network) Live(from, to string) int {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return len(nw.conns[link{from, to}])
}

// dialer is the forward.Dialer of node from.
func (nw *network) dialer(from string) forward.Dialer {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		nw.mu.Lock()
		to, known := nw.byGRPC[addr]
		ok := known && nw.groupOf[from] == nw.groupOf[to]
		if known && !ok {
			nw.refused[link{from, to}]++
		}
		target := addr
		if tn := nw.nodes[to]; known && addr == string(tn.RaftAddr) {
			target = tn.InternalAddr
		}
		nw.mu.Unlock()
		if !known {
			return nil, fmt.Errorf("test network: %s is not a node's gRPC or Raft address", addr)
		}
		if !ok {
			return nil, fmt.Errorf("dial %s (node %s) from node %s: %w", addr, to, from, errPartitioned)
		}
		conn, err := nw.dial(ctx, target)
		if err != nil {
			return nil, err
		}
		nw.mu.Lock()
		defer nw.mu.Unlock()
		l := link{from, to}
		if nw.groupOf[from] != nw.groupOf[to] { // partitioned while dialling
			nw.refused[l]++
			conn.Close()
			return nil, fmt.Errorf("dial %s (node %s) from node %s: %w", addr, to, from, errPartitioned)
		}
		tc := &trackedConn{Conn: conn, nw: nw, l: l}
		if nw.conns[l] == nil {
			nw.conns[l] = make(map[*trackedConn]struct{})
		}
		nw.conns[l][tc] = struct{}{}
		return tc, nil
	}
}

// trackedConn is a node-to-node connection the network can break.
type trackedConn struct {
	net.Conn
	nw   *network
	l    link
	once sync.Once
}

func (tc *trackedConn) Close() error {
	tc.once.Do(func() {
		tc.nw.mu.Lock()
		delete(tc.nw.conns[tc.l], tc)
		tc.nw.mu.Unlock()
	})
	return tc.Conn.Close()
}

// testLogWriter sends the nodes' logs to t.Log until stop, so nothing logs into a test that
// has finished.
type testLogWriter struct {
	mu      sync.Mutex
	t       testing.TB
	stopped bool
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testLogWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}
