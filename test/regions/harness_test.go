// Package regions runs clusters whose nodes sit in regions apart, on loopback: each node is
// assembled by node.Start as cmd/idnode assembles it (real Raft over TCP, real gRPC), and
// every connection between two nodes crosses the latency proxies of test/helpers/wan.
package regions

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
	"github.com/idnode/idnode/test/helpers/wan"
)

// startWithin bounds the start of a test cluster's nodes, formation included.
const startWithin = time.Minute

// member is one node of a test cluster: its tag and its region.
type member struct {
	Tag, Region string
}

// wanCluster is a running cluster of in-process nodes behind a wan.Net.
type wanCluster struct {
	nodes   map[string]*node.Node
	cfgs    map[string]node.Config
	network *wan.Net
}

// startWANCluster starts one node per member, bootstrapped together with --peers, each
// dialling its peers through the proxies of rt; timing is every node's Raft timing. It
// returns once every node serves and they agree on a leader. The nodes stop when the test
// ends.
func startWANCluster(t testing.TB, rt wan.RoundTrips, members []member, timing cluster.Timing, electionWait time.Duration) *wanCluster {
	return startPreferring(t, rt, members, timing, electionWait, "")
}

// startPreferring is startWANCluster with preferred, when set, as every node's preferred
// region; each node's region is its member's.
func startPreferring(t testing.TB, rt wan.RoundTrips, members []member, timing cluster.Timing, electionWait time.Duration, preferred string) *wanCluster {
	t.Helper()
	return startOver(t, rt, 0, members, timing, electionWait, preferred)
}

// startOver is startPreferring over links whose jitter is jitter (wan.StartJittered; 0: the
// default).
func startOver(t testing.TB, rt wan.RoundTrips, jitter time.Duration, members []member, timing cluster.Timing, electionWait time.Duration, preferred string) *wanCluster {
	t.Helper()
	var (
		peers []cluster.Peer
		wn    []wan.Node
	)
	c := &wanCluster{nodes: map[string]*node.Node{}, cfgs: map[string]node.Config{}}
	for _, m := range members {
		addr := loopback.FreeAddr(t)
		peers = append(peers, cluster.Peer{ID: m.Tag, Address: addr})
		wn = append(wn, wan.Node{Name: m.Tag, Region: m.Region, Addr: addr, ClientAddr: loopback.FreeAddr(t)})
	}
	c.network = wan.StartJittered(t, rt, jitter, wn)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for i, m := range members {
		c.cfgs[m.Tag] = node.Config{
			DataDir: t.TempDir(), Tag: m.Tag, Separator: '/',
			GRPCAddr: wn[i].ClientAddr, RaftAddr: peers[i].Address, Peers: peers,
			MaxCount: docid.DefaultMaxCount, IdentityBatch: 64, ElectionWait: electionWait,
			MaxConns: 64, Timing: timing, Dial: c.network.Dialer(m.Tag),
			Region: m.Region, PreferredRegion: preferred, HiLoPools: true,
			Logger: log.With("node", m.Tag),
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	// A new cluster forms only once every peer answers, so the others would wait for a node
	// that failed to start until the test binary's deadline: the first failure, or
	// startWithin, ends every start. The context is also the nodes' lifetime (node.Start), so
	// it is cancelled only then, or when the test ends.
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	timer := time.AfterFunc(startWithin, cancel)
	for _, m := range members {
		wg.Go(func() {
			n, err := c.openWith(ctx, t, m.Tag)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				cancel()
				return
			}
			c.nodes[m.Tag] = n
		})
	}
	wg.Wait()
	if !timer.Stop() && len(errs) == 0 {
		t.Fatalf("starting the cluster took over %v", startWithin)
	}
	if len(errs) > 0 {
		t.Fatalf("starting the cluster: %v", errs)
	}
	c.waitLeader(t, time.Minute)
	c.waitRegistered(t, time.Minute)
	return c
}

// waitRegistered waits until every running node knows every member as registered, which a
// node must be to hand out server-side IDs.
func (c *wanCluster) waitRegistered(t testing.TB, within time.Duration) {
	t.Helper()
	poll.Until(t, "every node registered on every node", within, 20*time.Millisecond, func() error {
		for tag, n := range c.nodes {
			known := map[string]bool{}
			for _, reg := range n.Cluster().FSM().Nodes() {
				known[reg.Tag] = true
			}
			for member := range c.cfgs {
				if !known[member] {
					return fmt.Errorf("node %s does not know %s yet", tag, member)
				}
			}
		}
		return nil
	})
}

// open starts the node with tag on its config (its data dir kept from an earlier start); it
// stops when the test ends.
func (c *wanCluster) open(t testing.TB, tag string) (*node.Node, error) {
	return c.openWith(t.Context(), t, tag)
}

// openWith is open with ctx bounding the start.
func (c *wanCluster) openWith(ctx context.Context, t testing.TB, tag string) (*node.Node, error) {
	n, err := node.Start(ctx, c.cfgs[tag])
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", tag, err)
	}
	t.Cleanup(func() { n.Close() })
	return n, nil
}

// leader is the tag of the node that every running node names as leader, or "" while they
// disagree or none leads.
func (c *wanCluster) leader() string {
	seen := ""
	for _, n := range c.nodes {
		id, _ := n.Cluster().Leader()
		tag, _ := docid.MemberTag(id)
		if id == "" || (seen != "" && tag != seen) {
			return ""
		}
		seen = tag
	}
	return seen
}

// waitLeader waits until every running node names the same leader, and returns its tag.
func (c *wanCluster) waitLeader(t testing.TB, within time.Duration) string {
	t.Helper()
	return c.waitLeaderThat(t, "one leader named by every node", within, func(string) bool { return true })
}

// waitLeaderThat waits until every running node names the same leader and ok accepts its
// tag, and returns the tag.
func (c *wanCluster) waitLeaderThat(t testing.TB, what string, within time.Duration, ok func(tag string) bool) string {
	t.Helper()
	var tag string
	poll.Until(t, what, within, 20*time.Millisecond, func() error {
		if tag = c.leader(); tag == "" || !ok(tag) {
			return fmt.Errorf("the nodes name %q", tag)
		}
		return nil
	})
	return tag
}

// client is a gRPC client of the node with tag, beside it (no proxy), closed when the test
// ends.
func (c *wanCluster) client(t testing.TB, tag string) idnodev1.IdServiceClient {
	t.Helper()
	cc, err := grpc.NewClient("passthrough:///"+c.cfgs[tag].GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return idnodev1.NewIdServiceClient(cc)
}
