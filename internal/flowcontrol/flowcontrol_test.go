package flowcontrol_test

import (
	"context"
	"net"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idnode/idnode/internal/flowcontrol"
)

// pingCounter reads the HTTP/2 frames going one way on a connection and counts the PINGs that
// are not acknowledgements: what one side sends of its own accord.
type pingCounter struct {
	mu     sync.Mutex
	skip   int    // bytes before the first frame (the client's connection preface)
	header []byte // the part of a frame header read so far
	body   int    // bytes of the current frame's payload still to come
	pings  int
}

func (p *pingCounter) feed(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(b) > 0 {
		switch {
		case p.skip > 0:
			n := min(p.skip, len(b))
			p.skip -= n
			b = b[n:]
		case p.body > 0:
			n := min(p.body, len(b))
			p.body -= n
			b = b[n:]
		default:
			n := min(9-len(p.header), len(b))
			p.header = append(p.header, b[:n]...)
			b = b[n:]
			if len(p.header) == 9 {
				const typePing, flagAck = 0x6, 0x1
				if p.header[3] == typePing && p.header[4]&flagAck == 0 {
					p.pings++
				}
				p.body = int(p.header[0])<<16 | int(p.header[1])<<8 | int(p.header[2])
				p.header = p.header[:0]
			}
		}
	}
}

func (p *pingCounter) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pings
}

// countedConn counts the PINGs the server sends (what the client reads) and the client sends.
type countedConn struct {
	net.Conn
	fromServer, fromClient *pingCounter
}

func (c countedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.fromServer.feed(b[:n])
	return n, err
}

func (c countedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.fromClient.feed(b[:n])
	return n, err
}

// pingsOver makes calls health checks on one connection between a server with serverOpts and
// a client with dialOpts, and returns the PINGs each side sent of its own accord.
func pingsOver(t *testing.T, calls int, serverOpts []grpc.ServerOption, dialOpts []grpc.DialOption) (server, client int) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(serverOpts...)
	healthpb.RegisterHealthServer(gs, health.NewServer())
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()

	fromServer := &pingCounter{}
	fromClient := &pingCounter{skip: len("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")}
	dial := func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return countedConn{Conn: c, fromServer: fromServer, fromClient: fromClient}, nil
	}
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(), append(dialOpts,
		grpc.WithContextDialer(dial), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	for range calls {
		if _, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	return fromServer.count(), fromClient.count()
}

// With the fixed windows neither side pings to estimate bandwidth; with grpc-go's defaults
// both do, from the first call on (which shows the counter sees them).
func TestFixedWindowsSendNoPings(t *testing.T) {
	const calls = 200
	server, client := pingsOver(t, calls, nil, nil)
	if server == 0 || client == 0 {
		t.Fatalf("with grpc-go's default windows the server sent %d PINGs and the client %d over %d calls; the counter misses them", server, client, calls)
	}
	server, client = pingsOver(t, calls, flowcontrol.ServerOptions(), flowcontrol.DialOptions())
	if server != 0 || client != 0 {
		t.Errorf("with fixed windows the server sent %d PINGs and the client %d over %d calls, want none", server, client, calls)
	}
}
