package forward_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/internal/forward"
)

// relayThroughPartition starts a leader behind a partition and a forwarder with wait as its
// election wait that reaches it through the partition (with opts added to its connections'),
// and relays one call to check the path. The forwarder's view of who leads is c.
func relayThroughPartition(t testing.TB, wait time.Duration, opts ...grpc.DialOption) (f *forward.Forwarder, path *partition, c *fakeCluster) {
	t.Helper()
	path = newPartition(t, startLeader(t, func(context.Context) error { return nil }))
	c = &fakeCluster{id: "F"}
	c.set("L", leaderAddr)
	f = forward.New(forward.Config{Cluster: c, Dial: path.dial, Secret: testSecret, ElectionWait: wait, DialOptions: opts})
	t.Cleanup(f.Close)
	if _, err := call(f, context.Background()); err != nil {
		t.Fatalf("relay before the cut: %v", err)
	}
	// What follows is sent after that answer came, as on any network. In a bubble it would
	// share the answer's instant, and the link counts an answer of the same instant as heard
	// after a call (link.silentSince), so a call into the cut would not make it suspect.
	time.Sleep(time.Millisecond)
	return f, path, c
}

// leaderAddr is the leader's address as the forwarder knows it; the partition's dialer
// ignores it.
const leaderAddr = "leader.internal:7000"

// After a cut in which the follower relayed a call into the blackhole, its first relayed call
// to succeed comes within the election wait and one hop's bound of the heal: the link
// timeout replaces the pooled connection, and a call that went on the old one meanwhile ends
// at its bound. Reusing the connection of before the cut, every call failed until TCP's
// retransmission backoff ran out, up to half a minute. The call into the blackhole ends at the
// hop's bound (a node still sure of its leader) or sooner (a node that saw the leader go after
// a heartbeat timeout, or whose caller gave up).
func TestARelayAnswersSoonAfterAPartitionHeals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		giveUp time.Duration // the call into the blackhole ends after this; 0: at the hop's bound
	}{
		{"the call in the cut waited for the hop's bound", 0},
		{"the call in the cut was given up early", 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const wait = time.Second
				f, path, _ := relayThroughPartition(t, wait)

				path.cut(t)
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if tc.giveUp > 0 {
					ctx, cancel = context.WithTimeout(ctx, tc.giveUp)
				}
				_, err := call(f, ctx)
				cancel()
				if err == nil {
					t.Fatal("a relay into the blackhole was answered")
				}
				path.heal(t)
				healed := time.Now()
				bound := wait + forward.Unary.Bound
				for {
					_, err := call(f, context.Background())
					if err == nil {
						t.Logf("the first relay answered %v after the heal", time.Since(healed).Round(time.Millisecond))
						return
					}
					if time.Since(healed) > bound {
						t.Fatalf("no relay answered within %v of the heal (%v): %v", bound, time.Since(healed).Round(time.Millisecond), err)
					}
				}
			})
		})
	}
}

// A pooled connection that carries no call is replaced too once the other node goes silent
// (gone without a FIN, or moved to another address), by gRPC's keepalive, within PingEvery
// and the link timeout.
func TestASilentIdleConnectionIsReplaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits for a keepalive ping, over 10 s")
		}
		const wait = time.Second
		f, path, _ := relayThroughPartition(t, wait)
		cc, err := f.Conn(leaderAddr)
		if err != nil {
			t.Fatal(err)
		}
		if s := cc.GetState(); s != connectivity.Ready {
			t.Fatalf("connection after a relay: %v, want READY", s)
		}

		path.cut(t)
		cut := time.Now()
		bound := forward.PingEvery + wait + 3*time.Second // and time for a loaded machine
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		if !cc.WaitForStateChange(ctx, connectivity.Ready) {
			t.Fatalf("the silent connection was still in use %v after the cut", bound)
		}
		t.Logf("the silent connection was dropped %v after the cut", time.Since(cut).Round(time.Millisecond))
		path.heal(t)
		if _, err := call(f, context.Background()); err != nil {
			t.Fatalf("relay after the heal: %v", err)
		}
	})
}

// A leader that is slow to answer but reachable keeps its connection: a relayed call ends
// at the hop's bound with nothing heard, but the health check it sets off is answered.
func TestASlowLeaderKeepsItsConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		addr := startLeader(t, func(ctx context.Context) error {
			if len(metadata.ValueFromIncomingContext(ctx, "slow")) > 0 {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		})
		var dials atomic.Int32
		dial := func(ctx context.Context, _ string) (net.Conn, error) {
			dials.Add(1)
			return network.Dial(ctx, addr)
		}
		c := &fakeCluster{id: "F"}
		c.set("L", leaderAddr)
		const wait = time.Second
		f := forward.New(forward.Config{Cluster: c, Dial: dial, Secret: testSecret, ElectionWait: wait, PassOn: []string{"slow"}})
		t.Cleanup(f.Close)
		if _, err := call(f, context.Background()); err != nil {
			t.Fatalf("relay: %v", err)
		}
		slow := metadata.NewIncomingContext(context.Background(), metadata.Pairs("slow", "yes"))
		if _, err := call(f, slow); err == nil {
			t.Fatal("the slow leader answered within the hop's bound")
		}
		cc, err := f.Conn(leaderAddr)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait+time.Second)
		defer cancel()
		if cc.WaitForStateChange(ctx, connectivity.Ready) {
			t.Fatalf("the connection to a slow leader left READY (now %v)", cc.GetState())
		}
		if _, err := call(f, context.Background()); err != nil || dials.Load() != 1 {
			t.Fatalf("relay after the slow one: %v, over %d connections; want an answer on the first", err, dials.Load())
		}
	})
}
