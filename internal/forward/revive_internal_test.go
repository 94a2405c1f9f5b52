package forward

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
)

// A connection's first attempt is not revived: calls wait for it (as for the connection to a
// new leader after a failover, which comes up while this node learns that leader), and ending
// it as it comes up would fail them. Here the attempt's dial is under way when this node
// learns the leader at its address; it goes on, and the connection comes up on it.
func TestAFirstConnectionAttemptIsNotRevived(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	var dials atomic.Int32
	began, release := make(chan struct{}, 1), make(chan struct{})
	dial := func(ctx context.Context, _ string) (net.Conn, error) {
		dials.Add(1)
		began <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return (&net.Dialer{}).DialContext(ctx, "tcp", lis.Addr().String())
	}
	p := newConns(dial, nil, func() []byte { return nil }, nil, time.Second)
	t.Cleanup(p.close)
	const addr = "leader.internal:7000"
	cc, err := p.conn(addr)
	if err != nil {
		t.Fatal(err)
	}
	cc.Connect()
	<-began
	if s := cc.GetState(); s != connectivity.Connecting {
		t.Fatalf("the connection during its first dial is %v, want CONNECTING", s)
	}

	p.revive(addr)
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for s := cc.GetState(); s != connectivity.Ready; s = cc.GetState() {
		if !cc.WaitForStateChange(ctx, s) {
			t.Fatalf("the connection stayed %v, want READY", s)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("the connection came up after %d dials, want 1: its first attempt was ended", n)
	}
}
