package forward_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"

	"github.com/idnode/idnode/internal/forward"
)

// relayStream relays a stream to the leader (its health Watch: one answer, then silence), calls
// answered once the first answer has come, and returns how the stream ended.
func relayStream(f *forward.Forwarder, ctx context.Context, answered func()) error {
	first := true
	return f.Do(ctx, forward.Stream, func(h *forward.Hop) error {
		s, err := healthpb.NewHealthClient(h.Conn).Watch(h.Context(), &healthpb.HealthCheckRequest{}, h.CallOptions()...)
		if err != nil {
			return err
		}
		for {
			if _, err := s.Recv(); err != nil {
				return err
			}
			if first {
				first = false
				answered()
			}
		}
	})
}

// A relayed stream in a cut, which only receives, ends with an error soon after the cut while
// this node still believes in the leader: the link probes its silent connection and closes it.
// gRPC's keepalive, which would otherwise end it after PingEvery, is an hour here, so the stream
// ends within the test only by the link.
func TestAStreamInACutEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = time.Second
		noPing := grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: time.Hour, Timeout: wait, PermitWithoutStream: true})
		f, path, _ := relayThroughPartition(t, wait, noPing)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		answered := make(chan struct{})
		ended := make(chan error, 1)
		go func() { ended <- relayStream(f, ctx, func() { close(answered) }) }()
		<-answered

		path.cut(t)
		cut := time.Now()
		err := <-ended
		if ctx.Err() != nil {
			t.Fatalf("the stream in the cut was still open 30 s after the cut: %v", err)
		}
		if err == nil {
			t.Fatal("the stream in the cut ended without an error")
		}
		t.Logf("the stream in the cut ended %v after the cut: %v", time.Since(cut).Round(time.Millisecond), err)
		path.heal(t)
		if _, err := call(f, context.Background()); err != nil {
			t.Fatalf("relay after the heal: %v", err)
		}
	})
}

// A relayed stream that the leader is only slow to go on with keeps its connection: the link's
// probes of the silent connection are answered.
func TestASlowStreamKeepsItsConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		probes := make(chan struct{}, 100)
		addr := serveLeader(t, &leaderServer{
			check:  func(context.Context) error { return nil },
			probed: func() { probes <- struct{}{} },
		})
		var dials atomic.Int32
		dial := func(ctx context.Context, _ string) (net.Conn, error) {
			dials.Add(1)
			return network.Dial(ctx, addr)
		}
		c := &fakeCluster{id: "F"}
		c.set("L", leaderAddr)
		f := forward.New(forward.Config{Cluster: c, Dial: dial, Secret: testSecret, ElectionWait: time.Second})
		t.Cleanup(f.Close)
		ctx, cancel := context.WithCancel(context.Background())
		answered := make(chan struct{})
		ended := make(chan error, 1)
		go func() { ended <- relayStream(f, ctx, func() { close(answered) }) }()
		<-answered

		timeout := time.After(30 * time.Second)
		for range 2 {
			select {
			case <-probes:
			case <-timeout:
				t.Fatal("the link did not probe the slow stream's silent connection within 30 s")
			}
		}
		select {
		case err := <-ended:
			t.Fatalf("the slow stream ended: %v", err)
		default:
		}
		cancel()
		<-ended
		if n := dials.Load(); n != 1 {
			t.Fatalf("the slow stream's connection was dialled %d times, want once", n)
		}
	})
}
