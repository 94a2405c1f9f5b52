package server_test

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/idnode/idnode/cluster"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
)

// slowName is a host name whose lookup takes slowLookup on every node, as a name does when the
// first DNS server asked does not answer and the resolver tries the next.
const (
	slowName   = "slow-dns.example"
	slowLookup = 1800 * time.Millisecond
)

// A follower takes AddNode to the leader, which resolves the new node's addresses before it
// decides. The hop must wait as long as the leader may take to resolve them and then commit:
// a bound shorter than the lookups' own gives the caller NO_QUORUM from a healthy cluster,
// while the leader goes on to add the node.
func TestAddNodeThroughAFollowerWaitsForASlowLookup(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestClusterWith(t, 3, func(sc server.Config) server.Config {
			sc.LookupHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
				if host != slowName {
					return harnessLookup(ctx, host)
				}
				select {
				case <-time.After(slowLookup):
					return []netip.Addr{netip.MustParseAddr("192.0.2.4")}, nil
				case <-ctx.Done():
					return nil, &net.DNSError{Err: ctx.Err().Error(), Name: host, IsTimeout: true}
				}
			}
			return sc
		})
		leader := c.waitLeader(startupTimeout, c.Tags()...)
		c.waitServing(startupTimeout, c.Tags()...)
		follower := "A"
		if leader == follower {
			follower = "B"
		}
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		admin := idnodev1.NewClusterServiceClient(c.Dial(t, follower))
		start := time.Now()
		resp, err := admin.AddNode(ctx, &idnodev1.AddNodeRequest{Tag: "D", RaftAddress: slowName + ":7000", GrpcAddress: "127.0.0.1:1", NonVoter: true})
		if err != nil {
			t.Fatalf("AddNode through follower %s, the leader's lookup taking %v: %v (after %v)", follower, slowLookup, err, time.Since(start))
		}
		if resp.GetNode().GetTag() != "D" {
			t.Fatalf("AddNode answered %v, want node D", resp)
		}
		want := cluster.Member{ID: resp.GetNode().GetId(), Address: slowName + ":7000"}
		if !slices.Contains(c.Node(leader).Node.Members(), want) {
			t.Errorf("the leader's configuration %v does not hold %v", c.Node(leader).Node.Members(), want)
		}
		if _, err := admin.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "D"}); err != nil {
			t.Fatalf("RemoveNode D through follower %s: %v", follower, err)
		}
	})
}
