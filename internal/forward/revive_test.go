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
// or in an attempt whose dial or handshake will never finish. Here gRPC's connect timeout and
// backoff are ten minutes, so the connection comes up within the test only if it is revived.
func TestARedialledConnectionDialsAgainOnceTheLeaderIsHeardFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(ctx context.Context, silent string) (net.Conn, error) // a dial during the cut
		// backoff: the dial fails at once, and gRPC waits out its backoff before the next.
		backoff bool
	}{
		{"in its backoff", func(context.Context, string) (net.Conn, error) {
			return nil, errors.New("no route to host")
		}, true},
		{"in a dial", func(ctx context.Context, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, false},
		{"in a handshake", func(ctx context.Context, silent string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", silent)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, silent := startLeader(t, func(context.Context) error { return nil }), silentListener(t)
			var cut atomic.Bool
			cut.Store(true)
			var dials atomic.Int32
			began := make(chan struct{}, 1)
			dial := func(ctx context.Context, _ string) (net.Conn, error) {
				dials.Add(1)
				if cut.Load() {
					began <- struct{}{}
					return tc.cut(ctx, silent)
				}
				return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
			}
			slow := grpc.WithConnectParams(grpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: 10 * time.Minute, Multiplier: 1, MaxDelay: 10 * time.Minute},
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
			if tc.backoff {
				waitForState(t, cc, connectivity.TransientFailure)
			}

			cut.Store(false)
			c.set("L", leaderAddr)
			waitForState(t, cc, connectivity.Ready)
			if n := dials.Load(); n != 2 {
				t.Fatalf("the connection came up after %d dials, want 2: the one in the cut and one after", n)
			}
			if _, err := call(f, context.Background()); err != nil {
				t.Fatalf("relay after the heal: %v", err)
			}
		})
	}
}

// silentListener accepts connections and never answers on them, as a node behind a cut that
// passes the TCP handshake (a proxy) does; it returns its address.
func silentListener(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lis.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	return lis.Addr().String()
}

// waitForState waits until cc is in state want.
func waitForState(t *testing.T, cc *grpc.ClientConn, want connectivity.State) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for s := cc.GetState(); s != want; s = cc.GetState() {
		if !cc.WaitForStateChange(ctx, s) {
			t.Fatalf("the connection stayed %v, want %v", s, want)
		}
	}
}
