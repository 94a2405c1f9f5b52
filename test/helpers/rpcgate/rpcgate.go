// Package rpcgate holds a client's calls of one gRPC method while a test looks at what the
// caller is doing meanwhile: it makes a wait for keys last exactly as long as the test needs,
// with no sleep standing in for it.
package rpcgate

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
)

// Gate holds calls of its method once shut, until opened. Calls of other methods pass.
type Gate struct {
	method string // the full method's last element: "NextHiLo"

	mu       sync.Mutex
	shut     bool
	held     chan struct{} // closed when the first call is held
	open     chan struct{} // closed by Open
	heldOnce sync.Once
}

// New returns an open gate for method ("NextHiLo", the HiLo range call).
func New(method string) *Gate {
	return &Gate{method: method, held: make(chan struct{}), open: make(chan struct{})}
}

// DialOption installs the gate in a client's connections (client.WithDialOptions).
func (g *Gate) DialOption() grpc.DialOption { return grpc.WithChainUnaryInterceptor(g.intercept) }

// Shut holds every call of the method from now on, until Open.
func (g *Gate) Shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shut = true
}

// Open lets the held calls and every later one through.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		g.shut = false
		close(g.open)
	}
}

// WaitHeld returns once a call is held, failing t if none is within d.
func (g *Gate) WaitHeld(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case <-g.held:
	case <-time.After(d):
		t.Fatalf("no %s call was held within %v: nothing waited for it", g.method, d)
	}
}

func (g *Gate) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if strings.HasSuffix(method, "/"+g.method) {
		g.mu.Lock()
		shut := g.shut
		g.mu.Unlock()
		if shut {
			g.heldOnce.Do(func() { close(g.held) })
			select {
			case <-g.open:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}
