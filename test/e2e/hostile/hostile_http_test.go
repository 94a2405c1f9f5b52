//go:build linux

package hostile

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// Hostile HTTP callers, all at once against one node: connections that
// dribble a body, 100 MB bodies (4 attackers, 20 a second each), chunked bodies over the limit
// (4, 5 a second each), and far more idle connections than
// --http-max-conns, for hostileFor. Meanwhile a gRPC client and an HTTP client on a keep-alive
// connection it opened before keep getting identities: no error, a median latency within
// hostileMedianLimit of the same client's on a control node it calls in turn (judgeLatency),
// and the node's RSS stays under hostileRSS (docs/http-api.md, "HTTP limits"). Not parallel: it measures
// latency, which other tests' load would blur.
func TestHostileHTTP(t *testing.T) {
	const (
		readTimeout = 2 * time.Second
		maxConns    = 64
		hostileFor  = 8 * time.Second
		hostileRSS  = 200 << 20
	)
	flags := []string{"--http-read-timeout", readTimeout.String(), "--http-max-conns", strconv.Itoa(maxConns)}
	p, base := startHTTPNode(t, flags...)
	control, controlBase := startHTTPNode(t, flags...)
	addr := strings.TrimPrefix(base, "http://")
	cmd, _ := p.Current()
	pid := cmd.Process.Pid
	attacked := normalHTTPCalls(t, p, base)
	controlled := normalHTTPCalls(t, control, controlBase)
	// One call of each before the attack opens the connections the normal clients keep: with
	// hundreds of attackers racing for --http-max-conns, a connection opened under attack
	// would measure the lottery for a slot, not what the node owes a caller it already serves.
	for _, calls := range []map[string]func() error{attacked, controlled} {
		for name, call := range calls {
			if err := call(); err != nil {
				t.Fatalf("%s before the attack: %v", name, err)
			}
		}
	}

	ctx, stop := context.WithTimeout(context.Background(), hostileFor)
	defer stop()
	var attackers sync.WaitGroup
	// attack runs n attackers, each repeating one at most every pace until the attack ends.
	// The pace keeps the test's own CPU (it shares the machine with the node) from being the
	// load: the attacks are on what a caller can hold, not on how many requests it can send.
	attack := func(n int, pace time.Duration, one func()) {
		for range n {
			attackers.Add(1)
			go func() {
				defer attackers.Done()
				tick := time.NewTicker(pace)
				defer tick.Stop()
				for ctx.Err() == nil {
					one()
					select {
					case <-ctx.Done():
					case <-tick.C:
					}
				}
			}()
		}
	}
	attack(48, time.Millisecond, func() { _ = dribble(addr, 0, readTimeout+time.Second) })
	attack(4, 50*time.Millisecond, func() { _, _, _ = hugeBody(addr, 100<<20, time.Now().Add(readTimeout+time.Second)) })
	attack(4, 200*time.Millisecond, func() { chunkedBody(ctx, base, 8<<20) })
	attack(4*maxConns, time.Millisecond, func() { idle(ctx, addr, readTimeout+time.Second) })

	var maxRSS int64
	var rssErr error
	rssDone := make(chan struct{})
	go func() {
		defer close(rssDone)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				n, err := readRSS(pid)
				if err != nil {
					rssErr = err
					return
				}
				maxRSS = max(maxRSS, n)
			}
		}
	}()
	under, onControl := map[string][]timedCall{}, map[string][]timedCall{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for name, call := range attacked {
		wg.Go(func() {
			got, gotControl, err := inTurn(ctx, call, controlled[name])
			if err != nil {
				t.Errorf("%s under attack: %v", name, err)
			}
			mu.Lock()
			under[name], onControl[name] = got, gotControl
			mu.Unlock()
		})
	}
	wg.Wait()
	attackers.Wait()
	<-rssDone
	if rssErr != nil {
		t.Fatalf("sampling the node's RSS: %v", rssErr)
	}
	for _, name := range []string{"gRPC", "HTTP"} {
		judgeLatency(t, name, since(under[name], time.Time{}), since(onControl[name], time.Time{}))
	}
	t.Logf("RSS at most %d MB under attack (limit %d MB)", maxRSS>>20, hostileRSS>>20)
	if maxRSS > hostileRSS {
		t.Errorf("RSS reached %d MB under attack; want at most %d MB", maxRSS>>20, hostileRSS>>20)
	}
	if err := attacked["HTTP"](); err != nil {
		t.Fatalf("HTTP after the attack: %v", err)
	}
}

// normalHTTPCalls is a normal client's calls to node p, whose HTTP API is at base: one
// identity over gRPC, and one over HTTP on a keep-alive connection that it opens once.
func normalHTTPCalls(t *testing.T, p *e2etest.Proc, base string) map[string]func() error {
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	keepAlive := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}, Timeout: e2etest.RPCTimeout}
	t.Cleanup(keepAlive.CloseIdleConnections)
	return map[string]func() error{
		"gRPC": generate(t, ids, "grpc|"),
		"HTTP": func() error {
			resp, err := keepAlive.Post(base+"/v1/ids", "application/json", strings.NewReader(`{"id":"http|"}`))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err == nil && resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("%d %s", resp.StatusCode, body)
			}
			return err
		},
	}
}

// chunkedBody POSTs size bytes of JSON whitespace with no Content-Length (chunked), so the
// node only learns the size by reading; it gives up with ctx.
func chunkedBody(ctx context.Context, base string, size int64) {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/ids", io.LimitReader(spaces{}, size))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := client.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}

// spaces is an endless reader of spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// idle opens a connection and sends nothing until the node closes it, hold has passed, or ctx
// ends.
func idle(ctx context.Context, addr string, hold time.Duration) {
	c, err := (&net.Dialer{Timeout: e2etest.RPCTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return
	}
	defer c.Close()
	deadline := time.Now().Add(hold)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.SetReadDeadline(deadline)
	_, _ = io.Copy(io.Discard, c)
}
