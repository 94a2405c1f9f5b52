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
// the jitter, whichever node dials; inside a region it takes at least InRegion.
func TestRoundTripTakesTheRegionsRoundTrip(t *testing.T) {
	nodes := []Node{
		{Name: "A", Region: "a", Addr: echo(t)},
		{Name: "B", Region: "a", Addr: echo(t)},
		{Name: "C", Region: "c", Addr: echo(t)},
	}
	n := Start(t, ThreeRegions, nodes)
	for _, tc := range []struct {
		from string
		to   Node
		want time.Duration
	}{
		{"A", nodes[2], 90 * time.Millisecond},
		{"C", nodes[0], 90 * time.Millisecond},
		{"A", nodes[1], InRegion},
	} {
		c, err := n.Dialer(tc.from)(t.Context(), tc.to.Addr)
		if err != nil {
			t.Fatalf("%s dials %s: %v", tc.from, tc.to.Name, err)
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
			t.Errorf("%s to %s: fastest round trip %v, want about %v", tc.from, tc.to.Name, fastest, tc.want)
		}
		if fastest < floor {
			t.Errorf("%s to %s: fastest round trip %v, want at least %v (%v less the jitter)", tc.from, tc.to.Name, fastest, floor, tc.want)
		}
		t.Logf("%s to %s: fastest round trip %v (nominal %v)", tc.from, tc.to.Name, fastest, tc.want)
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
