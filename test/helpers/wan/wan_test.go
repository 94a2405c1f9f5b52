package wan

import (
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// echo listens on loopback and writes back every byte it reads, until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return l.Addr().String()
}

// roundTrip sends one byte over c and waits for it to come back.
func roundTrip(t *testing.T, c net.Conn) time.Duration {
	t.Helper()
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// A round trip between two nodes takes at least the round trip between their regions, less
// the jitter, whichever node dials; inside a region it takes at least InRegion. A client in a
// region reaches a node's client port with its region's round trip to the node's.
func TestRoundTripTakesTheRegionsRoundTrip(t *testing.T) {
	nodes := []Node{
		{Name: "A", Region: "a", Addr: echo(t), ClientAddr: echo(t)},
		{Name: "B", Region: "a", Addr: echo(t)},
		{Name: "C", Region: "c", Addr: echo(t), ClientAddr: echo(t)},
	}
	n := Start(t, ThreeRegions, nodes)
	for _, tc := range []struct {
		from string
		dial func(ctx context.Context, addr string) (net.Conn, error)
		to   string
		addr string
		want time.Duration
	}{
		{"A", n.Dialer("A"), "C", nodes[2].Addr, 90 * time.Millisecond},
		{"C", n.Dialer("C"), "A", nodes[0].Addr, 90 * time.Millisecond},
		{"A", n.Dialer("A"), "B", nodes[1].Addr, InRegion},
		{"a client in a", n.ClientDialer("a"), "A", nodes[0].ClientAddr, InRegion},
		{"a client in a", n.ClientDialer("a"), "C", nodes[2].ClientAddr, 90 * time.Millisecond},
		{"a client in c", n.ClientDialer("c"), "A", nodes[0].ClientAddr, 90 * time.Millisecond},
	} {
		c, err := tc.dial(t.Context(), tc.addr)
		if err != nil {
			t.Fatalf("%s dials %s: %v", tc.from, tc.to, err)
		}
		// The fastest of a few: the least the network lets a round trip take.
		fastest := time.Hour
		for range 5 {
			fastest = min(fastest, roundTrip(t, c))
		}
		c.Close()
		floor := tc.want - 2*(tc.want/2)/jitterDivisor
		// The bound above only keeps a proxy that held bytes for ever from passing.
		if fastest > tc.want+time.Second {
			t.Errorf("%s to %s: fastest round trip %v, want about %v", tc.from, tc.to, fastest, tc.want)
		}
		if fastest < floor {
			t.Errorf("%s to %s: fastest round trip %v, want at least %v (%v less the jitter)", tc.from, tc.to, fastest, floor, tc.want)
		}
		t.Logf("%s to %s: fastest round trip %v (nominal %v)", tc.from, tc.to, fastest, tc.want)
	}
}

// A node cannot reach an address that is no other node's: no connection goes around the
// network.
func TestDialerRefusesAnAddressOfNoNode(t *testing.T) {
	nodes := []Node{{Name: "A", Region: "a", Addr: echo(t)}, {Name: "B", Region: "b", Addr: echo(t)}}
	n := Start(t, ThreeRegions, nodes)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if c, err := n.Dialer("A")(ctx, echo(t)); err == nil {
		c.Close()
		t.Fatal("A dialled an address of no node directly")
	}
	if c, err := n.Dialer("A")(ctx, nodes[0].Addr); err == nil {
		c.Close()
		t.Fatal("A dialled its own address through the network")
	}
}

// A client reaches only the nodes' client ports, and only from a region a node is in: a
// client's call cannot go around the network either.
func TestClientDialerRefusesAnAddressOfNoClientPort(t *testing.T) {
	nodes := []Node{{Name: "A", Region: "a", Addr: echo(t), ClientAddr: echo(t)}, {Name: "B", Region: "b", Addr: echo(t)}}
	n := Start(t, ThreeRegions, nodes)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for _, tc := range []struct{ region, addr, what string }{
		{"a", nodes[0].Addr, "A's Raft port"},
		{"b", nodes[1].Addr, "B's Raft port (B has no client port)"},
		{"c", nodes[0].ClientAddr, "A's client port from a region no node is in"},
	} {
		if c, err := n.ClientDialer(tc.region)(ctx, tc.addr); err == nil {
			c.Close()
			t.Errorf("a client in %s dialled %s", tc.region, tc.what)
		}
	}
}

// Between names a pair of regions in either order and a region with itself.
func TestBetweenIsSymmetric(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want time.Duration
		ok   bool
	}{
		{"a", "b", 30 * time.Millisecond, true},
		{"b", "a", 30 * time.Millisecond, true},
		{"c", "a", 90 * time.Millisecond, true},
		{"b", "b", InRegion, true},
		{"a", "z", 0, false},
	} {
		if got, ok := ThreeRegions.Between(tc.a, tc.b); got != tc.want || ok != tc.ok {
			t.Errorf("Between(%q, %q) = %v, %v; want %v, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}
