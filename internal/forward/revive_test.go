package forward_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/connectivity"

	"github.com/idnode/idnode/internal/forward"
)

// A connection that gRPC is redialling into a cut dials again as soon as the node hears from
// the leader again, whatever gRPC was doing: waiting out its backoff after a failed attempt,
// or in a later attempt whose dial will never finish. Here the first attempt in
// the cut fails at once and gRPC tries again a millisecond later; from then on its connect
// timeout and backoff are ten minutes, so the connection comes up within the test only if it
// is revived. It runs on real time: the goroutine that revives a connection outlives
// Forwarder.Close by up to the link timeout, which a synctest bubble refuses as a deadlock.
func TestARedialledConnectionDialsAgainOnceTheLeaderIsHeardFrom(t *testing.T) {
	for _, tc := range []struct {
		name  string
		retry func(ctx context.Context) (net.Conn, error) // the second dial in the cut
	}{
		{"in its backoff", func(context.Context) (net.Conn, error) {
			return nil, errors.New("no route to host")
		}},
		{"in a dial", func(ctx context.Context) (net.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startLeader(t, func(context.Context) error { return nil })
			var cut atomic.Bool
			cut.Store(true)
			var dials atomic.Int32
			began := make(chan struct{}, 2)
			dial := func(ctx context.Context, _ string) (net.Conn, error) {
				n := dials.Add(1)
				if !cut.Load() {
					return network.Dial(ctx, addr)
				}
				began <- struct{}{}
				if n == 1 {
					return nil, errors.New("no route to host")
				}
				return tc.retry(ctx)
			}
			slow := grpc.WithConnectParams(grpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: time.Millisecond, Multiplier: 1e6, MaxDelay: 10 * time.Minute},
				MinConnectTimeout: 10 * time.Minute,
			})
			c := &fakeCluster{id: "F"} // no leader heard from during the cut
			f := forward.New(forward.Config{Cluster: c, Dial: dial, Secret: testSecret, ElectionWait: time.Second, DialOptions: []grpc.DialOption{slow}})
			t.Cleanup(f.Close)
			cc, err := f.Conn(leaderAddr) // as a Status probe of the leader's node does
			if err != nil {
				t.Fatal(err)
			}
			cc.Connect()
			<-began
			<-began

			cut.Store(false)
			c.set("L", leaderAddr)
			waitForState(t, cc, connectivity.Ready)
			if n := dials.Load(); n != 3 {
				t.Fatalf("the connection came up after %d dials, want 3: two in the cut and one after", n)
			}
			if _, err := call(f, context.Background()); err != nil {
				t.Fatalf("relay after the heal: %v", err)
			}
		})
	}
}

// waitForState waits until cc is in state want.
func waitForState(t testing.TB, cc *grpc.ClientConn, want connectivity.State) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for s := cc.GetState(); s != want; s = cc.GetState() {
		if !cc.WaitForStateChange(ctx, s) {
			t.Fatalf("the connection stayed %v, want %v", s, want)
		}
	}
}
