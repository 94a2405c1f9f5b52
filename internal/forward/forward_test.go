package forward_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/flowcontrol"
	"github.com/idnode/idnode/internal/forward"
)

// fakeCluster is the forwarding node's view of who leads; onLook runs on every look.
type fakeCluster struct {
	mu      sync.Mutex
	id      string
	leader  string
	address string
	looks   int
	onLook  func(looks int) (leader, address string, change bool)
}

func (c *fakeCluster) ID() string                    { return c.id }
func (c *fakeCluster) IsLeader() bool                { l, _ := c.Leader(); return l == c.id }
func (c *fakeCluster) AwaitHandOver(context.Context) {}
func (c *fakeCluster) Leader() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.looks++
	if c.onLook != nil {
		if l, a, change := c.onLook(c.looks); change {
			c.leader, c.address = l, a
		}
	}
	return c.leader, c.address
}

func (c *fakeCluster) set(leader, address string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.leader, c.address = leader, address
}

// leaderServer is the leader's internal server: a health service whose Check of
// relayedService, the call the tests relay, is check. It answers a check of any other service
// (a link's probe: link.go) at once, as a node's internal server does.
type leaderServer struct {
	healthpb.UnimplementedHealthServer
	check  func(ctx context.Context) error
	probed func() // called on every probe answered; may be nil
}

const relayedService = "relayed"

func (l *leaderServer) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if req.GetService() != relayedService {
		if l.probed != nil {
			l.probed()
		}
		return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
	}
	if err := l.check(ctx); err != nil {
		return nil, err
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// Watch is a relayed stream that the leader is slow to go on with: it answers once, then
// sends nothing more until the stream ends, as a journal waiting on the leader's disk.
func (l *leaderServer) Watch(_ *healthpb.HealthCheckRequest, s grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	if err := s.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}); err != nil {
		return err
	}
	<-s.Context().Done()
	return s.Context().Err()
}

// startLeader serves check behind the receiving end's interceptors, with the fixed flow-control
// windows of a node's internal server (no bandwidth-estimating pings), and returns its address.
func startLeader(t testing.TB, check func(ctx context.Context) error) string {
	t.Helper()
	return serveLeader(t, &leaderServer{check: check})
}

// serveLeader serves l as startLeader does.
func serveLeader(t testing.TB, l *leaderServer) string {
	t.Helper()
	addr, lis := listen(t)
	unary, stream := forward.Receiver("L", testSecret)
	gs := grpc.NewServer(append(flowcontrol.ServerOptions(), grpc.UnaryInterceptor(unary), grpc.StreamInterceptor(stream))...)
	healthpb.RegisterHealthServer(gs, l)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	return addr
}

// refused marks what Refuse was given, so a test can tell a refusal from a passed-on answer.
type refused struct{ cause error }

func (r refused) Error() string { return "refused: " + r.cause.Error() }

// testSecret is the cluster secret of the test's nodes.
func testSecret() []byte { return []byte("0123456789abcdef-test") }

func newForwarder(t testing.TB, c *fakeCluster, wait time.Duration) *forward.Forwarder {
	f := forward.New(forward.Config{
		Cluster:      c,
		Secret:       testSecret,
		ElectionWait: wait,
		Refuse:       func(err error) error { return refused{err} },
		PassOn:       []string{"authorization"},
		Dial:         network.Dial,
	})
	t.Cleanup(f.Close)
	return f
}

var check = forward.Remote[*healthpb.HealthCheckRequest, *healthpb.HealthCheckResponse](
	func(cc *grpc.ClientConn, ctx context.Context, req *healthpb.HealthCheckRequest, opts ...grpc.CallOption) (*healthpb.HealthCheckResponse, error) {
		return healthpb.NewHealthClient(cc).Check(ctx, req, opts...)
	})

func call(f *forward.Forwarder, ctx context.Context) (served string, err error) {
	_, err = forward.Call(f, ctx, &healthpb.HealthCheckRequest{Service: relayedService}, forward.Unary,
		func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			served = "here"
			return &healthpb.HealthCheckResponse{}, nil
		}, check)
	if err == nil && served == "" {
		served = "leader"
	}
	return served, err
}

func TestACallWaitsForAnElectionUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		addr := startLeader(t, func(context.Context) error { return nil })
		c := &fakeCluster{id: "F", onLook: func(looks int) (string, string, bool) {
			return "L", addr, looks == 4 // the election ends while the call waits
		}}
		f := newForwarder(t, c, time.Minute)
		if served, err := call(f, context.Background()); err != nil || served != "leader" {
			t.Fatalf("call during an election: served %q, %v; want the new leader's answer", served, err)
		}
	})
}

func TestACallThisNodeWinsTheElectionForIsServedHere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &fakeCluster{id: "F", onLook: func(looks int) (string, string, bool) {
			return "F", "", looks == 3
		}}
		f := newForwarder(t, c, time.Minute)
		if served, err := call(f, context.Background()); err != nil || served != "here" {
			t.Fatalf("served %q, %v; want here", served, err)
		}
	})
}

func TestNoLeaderWithinTheElectionWaitIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &fakeCluster{id: "F"}
		f := newForwarder(t, c, 50*time.Millisecond)
		_, err := call(f, context.Background())
		var r refused
		if !errors.As(err, &r) || !errors.Is(r.cause, forward.ErrNoLeader) {
			t.Fatalf("no leader: %v, want a refusal for ErrNoLeader", err)
		}
	})
}

// A node that has been without a leader for longer than the election wait is not in an
// election but cut off: it refuses at once, however long the caller would wait.
func TestANodeLongWithoutALeaderRefusesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		now := time.Unix(1000, 0)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		c := &fakeCluster{id: "F"}
		c.set("L", network.Gone())
		f := forward.New(forward.Config{Cluster: c, Dial: network.Dial, ElectionWait: time.Hour, Now: clock, Refuse: func(err error) error { return refused{err} }})
		t.Cleanup(f.Close)
		if f.Local(context.Background()) {
			t.Fatal("a follower counts itself as the leader")
		}
		known, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, _ = call(f, known) // this node knows leader L now (whose port refuses: the call waits for another)
		cancel()
		c.set("", "")
		mu.Lock()
		now = now.Add(2 * time.Hour)
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := call(f, ctx)
		var r refused
		if !errors.As(err, &r) || !errors.Is(r.cause, forward.ErrNoLeader) {
			t.Fatalf("two election waits without a leader: %v, want a refusal for ErrNoLeader at once", err)
		}
	})
}

func TestTheCallersDeadlineIsItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &fakeCluster{id: "F"}
		f := newForwarder(t, c, time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := call(f, ctx); status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("caller's deadline during the wait: %v, want DEADLINE_EXCEEDED", err)
		}

		addr := startLeader(t, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
		c.set("L", addr)
		ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if _, err := call(f, ctx); status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("caller's deadline while the leader works: %v, want DEADLINE_EXCEEDED", err)
		}
	})
}

func TestTheLeadersAnswerPassesOnAndAFailedHopIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		own := status.Error(codes.FailedPrecondition, "the leader's own refusal")
		addr := startLeader(t, func(context.Context) error { return own })
		c := &fakeCluster{id: "F"}
		c.set("L", addr)
		f := newForwarder(t, c, 100*time.Millisecond) // the gone leader's call waits this long for another
		if _, err := call(f, context.Background()); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("the leader's error: %v, want it passed on", err)
		}

		gone := network.Gone()
		c.set("G", gone)
		var r refused
		if _, err := call(f, context.Background()); !errors.As(err, &r) || !errors.Is(r.cause, forward.ErrUnreached) {
			t.Fatalf("a leader nothing listens for: %v, want a refusal for ErrUnreached (nothing was sent)", err)
		}
	})
}

// A killed leader's port refuses at once, while this node still names it for a few heartbeat
// timeouts: the call, which never left, waits for the next leader and is answered by it.
func TestACallThatCouldNotReachADeadLeaderGoesToTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		addr := startLeader(t, func(context.Context) error { return nil })
		gone := network.Gone()
		c := &fakeCluster{id: "F"}
		c.set("D", gone)
		var dials atomic.Int32
		f := forward.New(forward.Config{
			Cluster: c, Secret: testSecret, ElectionWait: time.Minute,
			Refuse: func(err error) error { return refused{err} },
			Dial: func(ctx context.Context, a string) (net.Conn, error) {
				if a == gone && dials.Add(1) == 1 {
					c.set("L", addr) // elected while the call fails on the dead leader
				}
				return network.Dial(ctx, a)
			},
		})
		t.Cleanup(f.Close)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if served, err := call(f, ctx); err != nil || served != "leader" {
			t.Fatalf("call to a dead leader: served %q, %v; want the next leader's answer", served, err)
		}
		if dials.Load() == 0 {
			t.Fatal("the call never tried the dead leader: the test shows nothing")
		}
	})
}

func TestAHopEndsWhenTheLeaderChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		arrived := make(chan struct{})
		addr := startLeader(t, func(ctx context.Context) error {
			close(arrived)
			<-ctx.Done()
			return ctx.Err()
		})
		c := &fakeCluster{id: "F"}
		c.set("L", addr)
		f := newForwarder(t, c, time.Minute)
		go func() {
			<-arrived
			c.set("M", addr)
		}()
		_, err := call(f, context.Background())
		var r refused
		if !errors.As(err, &r) || !errors.Is(r.cause, forward.ErrLeaderChanged) || !errors.Is(r.cause, forward.ErrNoAnswer) {
			t.Fatalf("leader changed mid-call: %v, want a refusal for ErrNoAnswer (the leader had the call) and ErrLeaderChanged", err)
		}
	})
}

// A leader that answers in twice the default hop's bound is answered on a cluster told of long
// round trips (an election wait four times the default), and refused on a default one, at the
// bound: the bound stretches with the cluster's timing, which a leader's commit follows.
func TestAHopsBoundStretchesWithTheElectionWait(t *testing.T) {
	slow := 2 * forward.Unary.Bound
	for _, tc := range []struct {
		wait     time.Duration
		answered bool
	}{
		{forward.DefaultElectionWait, false},
		{4 * forward.DefaultElectionWait, true},
	} {
		t.Run(tc.wait.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				addr := startLeader(t, func(ctx context.Context) error {
					select {
					case <-time.After(slow):
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				})
				c := &fakeCluster{id: "F"}
				c.set("L", addr)
				f := newForwarder(t, c, tc.wait)
				start := time.Now()
				served, err := call(f, context.Background())
				took := time.Since(start)
				if tc.answered {
					if err != nil || served != "leader" {
						t.Fatalf("a leader answering in %v, election wait %v: served %q, %v; want its answer", slow, tc.wait, served, err)
					}
					return
				}
				var r refused
				if !errors.As(err, &r) || !errors.Is(r.cause, forward.ErrLeaderChanged) {
					t.Fatalf("a leader answering in %v, election wait %v: %v; want a refusal for ErrLeaderChanged", slow, tc.wait, err)
				}
				if took != forward.Unary.Bound {
					t.Fatalf("refused after %v, want at the bound, %v", took, forward.Unary.Bound)
				}
			})
		})
	}
}

func TestAHopCarriesThePassedOnMetadataAndArrivesMarked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type seen struct {
			auth    []string
			other   []string
			arrived bool
		}
		got := make(chan seen, 1)
		addr := startLeader(t, func(ctx context.Context) error {
			md, _ := metadata.FromIncomingContext(ctx)
			got <- seen{md.Get("authorization"), md.Get("other"), forward.Arrived(ctx) && forward.FromNode(ctx)}
			return nil
		})
		c := &fakeCluster{id: "F"}
		c.set("L", addr)
		f := newForwarder(t, c, time.Minute)
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer t", "other", "x"))
		if _, err := call(f, ctx); err != nil {
			t.Fatal(err)
		}
		s := <-got
		if len(s.auth) != 1 || s.auth[0] != "Bearer t" || len(s.other) != 0 || !s.arrived {
			t.Fatalf("the leader saw %+v; want the token only, and the call marked as forwarded by a node", s)
		}
		if forward.Arrived(ctx) || f.Local(ctx) {
			t.Fatal("a client's call to a follower counts as this node's to serve")
		}
	})
}

// The internal server refuses a call without this cluster's secret, and passes that refusal
// on as the leader's answer.
func TestTheInternalServerWantsTheClusterSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		addr := startLeader(t, func(context.Context) error { return nil })
		c := &fakeCluster{id: "F"}
		c.set("L", addr)
		wrong := forward.New(forward.Config{Cluster: c, Dial: network.Dial, Secret: func() []byte { return []byte("another cluster's secret") }, Refuse: func(err error) error { return refused{err} }})
		t.Cleanup(wrong.Close)
		if _, err := call(wrong, context.Background()); status.Code(err) != codes.Unauthenticated {
			t.Errorf("a wrong secret: %v, want UNAUTHENTICATED from the leader", err)
		}
		if served, err := call(newForwarder(t, c, time.Minute), context.Background()); err != nil || served != "leader" {
			t.Fatalf("with the secret: %q, %v", served, err)
		}
	})
}

// A node that has not caught up with the log does not know the secret yet; the leader refuses
// its call, having done nothing, and the node sends it again once it has caught up.
func TestANodeBehindOnTheSecretSendsAgainOnceItKnowsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var caughtUp atomic.Bool
		addr, lis := listen(t)
		unary, _ := forward.Receiver("L", testSecret)
		served := 0
		catchUp := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			resp, err := handler(ctx, req)
			if status.Code(err) == codes.Unauthenticated {
				caughtUp.Store(true) // the log reaches the node while the leader refuses
			}
			return resp, err
		}
		gs := grpc.NewServer(grpc.ChainUnaryInterceptor(catchUp, unary))
		healthpb.RegisterHealthServer(gs, &leaderServer{check: func(context.Context) error { served++; return nil }})
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)

		c := &fakeCluster{id: "F"}
		c.set("L", addr)
		f := forward.New(forward.Config{Cluster: c, Dial: network.Dial, Secret: func() []byte {
			if caughtUp.Load() {
				return testSecret()
			}
			return nil
		}, Refuse: func(err error) error { return refused{err} }})
		t.Cleanup(f.Close)
		if got, err := call(f, context.Background()); err != nil || got != "leader" || served != 1 || !caughtUp.Load() {
			t.Fatalf("served %q, %v (leader served %d, refused first: %v); want the leader's answer, once", got, err, served, caughtUp.Load())
		}
	})
}

// A node that does not learn the secret within the election wait refuses with ErrBehind (the
// caller retries), not with the leader's UNAUTHENTICATED.
func TestANodeThatStaysBehindRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		addr := startLeader(t, func(context.Context) error { return nil })
		c := &fakeCluster{id: "F"}
		c.set("L", addr)
		f := forward.New(forward.Config{Cluster: c, Dial: network.Dial, ElectionWait: 50 * time.Millisecond, Refuse: func(err error) error { return refused{err} }})
		t.Cleanup(f.Close)
		_, err := call(f, context.Background())
		var r refused
		if !errors.As(err, &r) || !errors.Is(r.cause, forward.ErrBehind) {
			t.Fatalf("a node that never learns the secret: %v, want a refusal for ErrBehind", err)
		}
	})
}

// A call that outlives its node's shutdown must not dial: nothing would close the connection,
// and gRPC would go on redialling a node that may be gone.
func TestClosedConnsOpenNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var dials atomic.Int32
		c := &fakeCluster{id: "F", leader: "L", address: "leader:1"}
		f := forward.New(forward.Config{
			Cluster: c,
			Secret:  testSecret,
			Refuse:  func(err error) error { return refused{err} },
			Dial: func(ctx context.Context, addr string) (net.Conn, error) {
				dials.Add(1)
				return network.Dial(ctx, addr)
			},
		})
		f.Close()
		if _, err := f.Conn("leader:1"); !errors.Is(err, forward.ErrClosed) {
			t.Errorf("Conn after Close: %v; want ErrClosed", err)
		}
		var r refused
		if _, err := call(f, context.Background()); !errors.As(err, &r) || !errors.Is(r.cause, forward.ErrClosed) {
			t.Errorf("a call after Close: %v; want a refusal for ErrClosed", err)
		}
		synctest.Wait()
		if n := dials.Load(); n != 0 {
			t.Errorf("a closed forwarder dialled %d times", n)
		}
	})
}
