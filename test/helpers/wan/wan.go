// Package wan puts a wide-area network between nodes on loopback. Every connection one node
// opens to another crosses a Toxiproxy proxy (github.com/Shopify/toxiproxy, run in-process)
// that delays both directions so that a round trip takes what it takes between the two
// nodes' regions, with jitter.
//
// Latency differs by the dialer's region as well as the target's, so each directed pair of
// nodes has a proxy of its own, and each node dials its peers through a Dialer that sends it
// to the proxies of its pairs (node.Config.Dial, used for Raft and forwarding alike). An
// address that belongs to no node is refused rather than dialled directly, so no connection
// between nodes can go around the network.
//
// Clients sit in regions too: a client in a region reaches each node's client port through a
// proxy of its own (ClientDialer), so a call to a node of the client's region costs InRegion
// and a call to another region's node costs the round trip between the two regions, as it
// would for an application running beside the nodes of its region.
package wan

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"

	"github.com/idnode/idnode/test/helpers/loopback"
)

// InRegion is the round trip between two nodes of one region.
const InRegion = time.Millisecond

// jitterDivisor makes each direction's jitter a tenth of its delay: round trips vary by about
// ±10%, as they do on a real link, without ever taking less than 80% of the nominal time.
const jitterDivisor = 10

// RoundTrips gives the round trip between two regions; a pair may be named in either order.
type RoundTrips map[[2]string]time.Duration

// ThreeRegions are the three regions of a cluster spread wide: a and b 30 ms apart, b and c
// 70 ms, a and c 90 ms.
var ThreeRegions = RoundTrips{
	{"a", "b"}: 30 * time.Millisecond,
	{"b", "c"}: 70 * time.Millisecond,
	{"a", "c"}: 90 * time.Millisecond,
}

// Between is the round trip from region a to region b: InRegion when they are the same.
func (r RoundTrips) Between(a, b string) (time.Duration, bool) {
	if a == b {
		return InRegion, true
	}
	if d, ok := r[[2]string{a, b}]; ok {
		return d, true
	}
	d, ok := r[[2]string{b, a}]
	return d, ok
}

// Node is one node as the network sees it.
type Node struct {
	Name   string // unique among the nodes, e.g. the node's tag
	Region string
	Addr   string // host:port the node listens on for its peers (its Raft port)
	// ClientAddr is the host:port clients call the node at (its gRPC client port); empty: no
	// client reaches the node through the network.
	ClientAddr string
}

// Net is the proxies between a set of nodes, and between the clients of each of their regions
// and the nodes. It is fixed once started.
type Net struct {
	// routes maps a dialing node's name and a target's address to the proxy between them.
	routes map[string]map[string]string
	// clientRoutes maps a client's region and a node's client address to the proxy between
	// them.
	clientRoutes map[string]map[string]string
}

// Start starts one proxy per directed pair of nodes, each delaying traffic by half the round
// trip between the pair's regions in each direction, and one from the clients of each node's
// region to each node that has a ClientAddr. The proxies stop when the test ends. A pair of
// regions that rt does not name fails the test.
func Start(t testing.TB, rt RoundTrips, nodes []Node) *Net {
	t.Helper()
	return StartJittered(t, rt, 0, nodes)
}

// StartJittered is Start with each direction's delay varying by up to jitter either way
// (uniformly, chunk by chunk; a delay never goes below zero); 0 keeps Start's tenth of the
// delay. It is how a test finds what a link's variance, not its mean, does to Raft's timing.
func StartJittered(t testing.TB, rt RoundTrips, jitter time.Duration, nodes []Node) *Net {
	t.Helper()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	n := &Net{routes: make(map[string]map[string]string, len(nodes)), clientRoutes: map[string]map[string]string{}}
	for _, from := range nodes {
		n.routes[from.Name] = make(map[string]string, len(nodes))
		for _, to := range nodes {
			if to.Name != from.Name {
				n.routes[from.Name][to.Addr] = proxy(t, server, rt, jitter, from.Name+"->"+to.Name, from.Region, to.Region, to.Addr)
			}
		}
	}
	for _, from := range nodes {
		if n.clientRoutes[from.Region] != nil {
			continue
		}
		n.clientRoutes[from.Region] = make(map[string]string, len(nodes))
		for _, to := range nodes {
			if to.ClientAddr != "" {
				name := "clients in " + from.Region + "->" + to.Name
				n.clientRoutes[from.Region][to.ClientAddr] = proxy(t, server, rt, jitter, name, from.Region, to.Region, to.ClientAddr)
			}
		}
	}
	return n
}

// proxy starts the proxy called name to upstream, delayed by the round trip between regions
// from and to with jitter (0: a tenth of each direction's delay), and returns the address it
// listens on.
func proxy(t testing.TB, server *toxiproxy.ApiServer, rt RoundTrips, jitter time.Duration, name, from, to, upstream string) string {
	t.Helper()
	d, ok := rt.Between(from, to)
	if !ok {
		t.Fatalf("wan: no round trip given between regions %q and %q", from, to)
	}
	// The listen address comes from loopback's registry rather than the kernel's ":0": the
	// nodes' own ports were picked there and closed again, and the kernel may hand such a
	// port to a proxy, which would leave its node unable to listen.
	p := toxiproxy.NewProxy(server, name, loopback.FreeAddr(t), upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("wan: proxy %s: %v", p.Name, err)
	}
	t.Cleanup(p.Stop)
	if err := delay(p, d, jitter); err != nil {
		t.Fatalf("wan: proxy %s: %v", p.Name, err)
	}
	return p.Listen
}

// delay adds latency toxics to p so that a round trip through it takes rtt: half of it on
// the way there, the rest on the way back, each with jitter (0: a tenth of the leg's delay).
func delay(p *toxiproxy.Proxy, rtt, jitter time.Duration) error {
	there := rtt.Milliseconds() / 2
	back := rtt.Milliseconds() - there
	for _, leg := range []struct {
		stream string
		ms     int64
	}{{"upstream", there}, {"downstream", back}} {
		if leg.ms == 0 {
			continue
		}
		spread := leg.ms / jitterDivisor
		if jitter > 0 {
			spread = jitter.Milliseconds()
		}
		spec := fmt.Sprintf(`{"type":"latency","stream":%q,"attributes":{"latency":%d,"jitter":%d}}`,
			leg.stream, leg.ms, spread)
		if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
			return err
		}
	}
	return nil
}

// Dialer is how node from opens connections to its peers (a node.Config.Dial): through the
// proxy between them. It refuses an address that is no other node's.
func (n *Net) Dialer(from string) func(ctx context.Context, addr string) (net.Conn, error) {
	return dialVia(n.routes[from], from, "no other node's address")
}

// ClientDialer is how a client in region opens connections to the nodes' client ports (a
// grpc.WithContextDialer): through the proxy between its region and the node's. It refuses an
// address that is no node's client port, and every address for a region no node is in.
func (n *Net) ClientDialer(region string) func(ctx context.Context, addr string) (net.Conn, error) {
	return dialVia(n.clientRoutes[region], "a client in "+region, "no node's client port")
}

// dialVia dials the proxy routes names for an address, and refuses one it does not name: who
// and what say so in the error.
func dialVia(routes map[string]string, who, what string) func(ctx context.Context, addr string) (net.Conn, error) {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		proxy, ok := routes[addr]
		if !ok {
			return nil, fmt.Errorf("wan: %s has no route to %s: it is %s", who, addr, what)
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", proxy)
	}
}
