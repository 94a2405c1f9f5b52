package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/memnet"
	"github.com/idnode/idnode/test/helpers/poll"
)

// tracedCluster is a three-node cluster whose nodes trace every call into span recorders of
// their own, and an application that traces its calls into one more. It runs in a
// testing/synctest bubble: the nodes in virtual time on an in-memory network, where a loaded
// CPU cannot cost a leader its lease. Each node serves HTTP/JSON on a network of its own,
// in memory too (a loopback socket would stop the bubble's clock).
type tracedCluster struct {
	*testCluster
	mu      sync.Mutex
	nodes   map[string]*tracetest.SpanRecorder // by node tag
	app     *sdktrace.TracerProvider
	appIn   *tracetest.SpanRecorder
	httpNet *memnet.Network
}

func newTracedCluster(t *testing.T) *tracedCluster {
	tc := &tracedCluster{nodes: map[string]*tracetest.SpanRecorder{}, appIn: tracetest.NewSpanRecorder(), httpNet: memnet.New()}
	tc.app = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tc.appIn))
	tc.testCluster = newVirtualTestClusterConfigured(t, 3, func(c *node.Config) {
		c.HTTPListener, c.HTTP.MaxConns = tc.httpNet.Listen(), 16
		c.Tracing = func(tag string, _ *slog.Logger) (*tracing.Tracing, error) {
			rec := tracetest.NewSpanRecorder()
			tc.mu.Lock()
			tc.nodes[tag] = rec
			tc.mu.Unlock()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			return tracing.New(tp, tag, tp.Shutdown), nil
		}
	})
	return tc
}

// httpClient reaches the nodes' HTTP/JSON faces. It keeps no connection between requests,
// whose reading goroutines would outlive the bubble.
func (tc *tracedCluster) httpClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:       func(ctx context.Context, _, addr string) (net.Conn, error) { return tc.httpNet.Dial(ctx, addr) },
		DisableKeepAlives: true,
	}}
}

// client is an IdService client of node tag whose calls the application traces.
func (tc *tracedCluster) client(t *testing.T, tag string) idnodev1.IdServiceClient {
	cc, err := grpc.NewClient("passthrough:///"+tc.Node(tag).GRPCAddr, append(tc.DialOptions(),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tc.app), otelgrpc.WithPropagators(tracing.Propagator()))))...)
	if err != nil {
		t.Fatalf("dial node %s: %v", tag, err)
	}
	t.Cleanup(func() { cc.Close() })
	return idnodev1.NewIdServiceClient(cc)
}

// tracedSpan is a finished span and the node that recorded it ("app": the application).
type tracedSpan struct {
	sdktrace.ReadOnlySpan
	node string
}

func attr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// The span tree of one identity made through a follower (docs/TRACING.md, "The span tree").
var followerCallTree = []struct{ name, parent, on string }{
	{"idnode.v1.IdService/NextIdentity", "app.call", "follower"}, // the application's client span
	{"idnode.v1.IdService/NextIdentity@follower", "idnode.v1.IdService/NextIdentity", "follower"},
	{tracing.SpanBatchWait + "@follower", "idnode.v1.IdService/NextIdentity@follower", "follower"},
	{tracing.SpanRelay, "idnode.v1.IdService/NextIdentity@follower", "follower"},
	{"idnode.forward.v1.Forward/NextIdentities", tracing.SpanRelay, "follower"},
	{"idnode.forward.v1.Forward/NextIdentities@leader", "idnode.forward.v1.Forward/NextIdentities", "leader"},
	{tracing.SpanBatchWait + "@leader", "idnode.forward.v1.Forward/NextIdentities@leader", "leader"},
	{tracing.SpanRaftApply, "idnode.forward.v1.Forward/NextIdentities@leader", "leader"},
	{tracing.SpanLogWrite, tracing.SpanRaftApply, "leader"},
	{tracing.SpanFollowerAck, tracing.SpanRaftApply, "leader"},
	{tracing.SpanFSMApply, tracing.SpanRaftApply, "leader"},
}

// An identity made through a follower is one trace, from the application's span to the
// leader's Raft round: the follower's wait for its batch and its relay, the leader's wait,
// its Raft apply and the stages of that, each on the node that did it and under the span
// it belongs to. In virtual time: on a real-time cluster a load average above 30 cost the
// leader its lease.
func TestIdentityThroughAFollowerIsOneTrace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tc := newTracedCluster(t)
		leader := tc.waitLeader(convergeTimeout, tc.Tags()...)
		follower := without(tc.Tags(), leader)[0]
		ids := tc.client(t, follower)

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// A follower that has not applied the cluster secret yet has its first relay refused and
		// sent again, which puts two leader server spans in the trace: an untraced identity
		// through it first waits that out.
		if _, err := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "traced"}); err != nil {
			t.Fatalf("a first NextIdentity through follower %s: %v", follower, err)
		}
		ctx, root := tc.app.Tracer("test").Start(ctx, "app.call")
		if _, err := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "traced"}); err != nil {
			t.Fatalf("NextIdentity through follower %s: %v", follower, err)
		}
		root.End()

		// A server span ends once its answer is sent, which may be after the caller has it.
		var byKey map[string]tracedSpan
		poll.Until(t, "every span of the call ended", 5*time.Second, 10*time.Millisecond, func() error {
			var err error
			byKey, err = resolveTree(tc.traceByNode(root.SpanContext().TraceID(), leader, follower))
			return err
		})
		rootID := root.SpanContext().SpanID()
		for _, want := range followerCallTree {
			s := byKey[want.name]
			wantNode := map[string]string{"leader": leader, "follower": follower}[want.on]
			var parentID trace.SpanID
			if want.parent == "app.call" {
				parentID = rootID
			} else {
				parentID = byKey[want.parent].SpanContext().SpanID()
			}
			if got := s.Parent().SpanID(); got != parentID {
				t.Errorf("span %s: parent %s, want %s (%s)", want.name, got, parentID, want.parent)
			}
			if want.name == "idnode.v1.IdService/NextIdentity" {
				continue // the application's span, not a node's
			}
			if s.node != wantNode {
				t.Errorf("span %s recorded by node %s, want %s (%s)", want.name, s.node, wantNode, want.on)
			}
			if v, ok := attr(s, tracing.AttrNodeID); ok && v.AsString() != wantNode {
				t.Errorf("span %s: %s=%s, want %s", want.name, tracing.AttrNodeID, v.AsString(), wantNode)
			}
		}
		for _, name := range []string{tracing.SpanBatchWait + "@follower", tracing.SpanRelay, tracing.SpanBatchWait + "@leader",
			tracing.SpanRaftApply, tracing.SpanLogWrite, tracing.SpanFollowerAck, tracing.SpanFSMApply} {
			s := byKey[name]
			if _, ok := attr(s, tracing.AttrNodeID); !ok {
				t.Errorf("span %s has no %s", name, tracing.AttrNodeID)
			}
			if s.EndTime().Before(s.StartTime()) {
				t.Errorf("span %s ends (%v) before it starts (%v)", name, s.EndTime(), s.StartTime())
			}
		}
		for _, name := range []string{tracing.SpanRaftApply, tracing.SpanLogWrite, tracing.SpanFollowerAck, tracing.SpanFSMApply} {
			if v, ok := attr(byKey[name], tracing.AttrRaftIndex); !ok || v.AsInt64() < 1 {
				t.Errorf("span %s: %s = %v, want the entry's index", name, tracing.AttrRaftIndex, v.String())
			}
		}
		// The stages follow one another within the apply.
		apply := byKey[tracing.SpanRaftApply]
		for _, name := range []string{tracing.SpanLogWrite, tracing.SpanFollowerAck, tracing.SpanFSMApply} {
			s := byKey[name]
			if s.StartTime().Before(apply.StartTime()) || s.EndTime().After(apply.EndTime()) {
				t.Errorf("span %s [%v, %v] is not within %s [%v, %v]", name, s.StartTime(), s.EndTime(), tracing.SpanRaftApply, apply.StartTime(), apply.EndTime())
			}
		}
	})
}

// traceByNode is the trace's spans keyed by name, with "@leader" or "@follower" added to the
// names that more than one node records (the server spans, the batch waits). A key may have
// more than one span: a relay the forwarder tried again (the leader refused a hop that came
// before the cluster secret reached it) has a client span, and a server span, per attempt.
func (tc *tracedCluster) traceByNode(id trace.TraceID, leader, follower string) map[string][]tracedSpan {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := map[string][]tracedSpan{}
	role := map[string]string{leader: "@leader", follower: "@follower"}
	for _, s := range tc.appIn.Ended() {
		if s.SpanContext().TraceID() == id && s.Name() != "app.call" {
			out[s.Name()] = append(out[s.Name()], tracedSpan{s, "app"})
		}
	}
	for tag, rec := range tc.nodes {
		for _, s := range rec.Ended() {
			if s.SpanContext().TraceID() != id {
				continue
			}
			key := s.Name()
			if s.SpanKind() == trace.SpanKindServer || key == tracing.SpanBatchWait {
				key += role[tag]
			}
			out[key] = append(out[key], tracedSpan{s, tag})
		}
	}
	return out
}

// resolveTree picks, for each span of followerCallTree, the one span of the trace that is
// part of the call's answer: the only one of its name, or, where an attempt was repeated, the
// parent of the chosen span below it. Children come after their parents in the tree, so it
// works from the end.
func resolveTree(all map[string][]tracedSpan) (map[string]tracedSpan, error) {
	chosen := map[string]tracedSpan{}
	for i := len(followerCallTree) - 1; i >= 0; i-- {
		name := followerCallTree[i].name
		cands := all[name]
		switch {
		case len(cands) == 0:
			return nil, fmt.Errorf("no span %s; have %v", name, keys(all))
		case len(cands) == 1:
			chosen[name] = cands[0]
			continue
		}
		for _, child := range followerCallTree[i+1:] {
			c, ok := chosen[child.name]
			if child.parent != name || !ok {
				continue
			}
			for _, cand := range cands {
				if cand.SpanContext().SpanID() == c.Parent().SpanID() {
					chosen[name] = cand
				}
			}
		}
		if _, ok := chosen[name]; !ok {
			return nil, fmt.Errorf("%d spans %s, none the parent of the call's next span", len(cands), name)
		}
	}
	return chosen, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A call relayed to the leader by its own name (relay.go) carries the trace too: the
// leader's span of its leader half is a child of the follower's hop, and the Raft stages of
// its entry are under it, on the leader.
func TestCallRelayedByNameIsOneTrace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tc := newTracedCluster(t)
		leader := tc.waitLeader(convergeTimeout, tc.Tags()...)
		follower := without(tc.Tags(), leader)[0]
		ids := tc.client(t, follower)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctx, root := tc.app.Tracer("test").Start(ctx, "app.call")
		if _, err := ids.SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: "seeded", Value: 41}); err != nil {
			t.Fatalf("SeedIdentity through follower %s: %v", follower, err)
		}
		root.End()
		const leaderHalf = "idnode.leader.idnode.v1.IdService/SeedIdentity"
		// A hop the leader refused (one that came before the cluster secret reached it) is tried
		// again: there may be more than one hop and leader-half span, but one Raft entry.
		poll.Until(t, "the relayed call's spans", 5*time.Second, 10*time.Millisecond, func() error {
			all := tc.traceByNode(root.SpanContext().TraceID(), leader, follower)
			var served tracedSpan
			for _, stage := range []string{tracing.SpanLogWrite, tracing.SpanFollowerAck, tracing.SpanFSMApply} {
				s := all[stage]
				if len(s) != 1 || s[0].node != leader {
					return fmt.Errorf("stage %s: %d spans, want one on the leader; have %v", stage, len(s), keys(all))
				}
				parent, ok := spanByID(all, s[0].Parent().SpanID())
				if !ok || parent.Name() != leaderHalf || parent.node != leader {
					return fmt.Errorf("stage %s is not under the leader's span of %s", stage, leaderHalf)
				}
				served = parent
			}
			hop, ok := spanByID(all, served.Parent().SpanID())
			if !ok || hop.node != follower || hop.SpanKind() != trace.SpanKindClient {
				return fmt.Errorf("the leader's span of %s is not a child of the follower's hop", leaderHalf)
			}
			return nil
		})
	})
}

// A request to the HTTP/JSON API that carries a traceparent continues the caller's trace: the
// HTTP span is its child, and the gateway's gRPC call, which the node serves in-process, is
// under the HTTP span. In virtual time, like the tests above: on a real-time cluster a load
// average above 30 kept the cluster from electing a leader within the test's 20 s.
func TestHTTPRequestContinuesTheCallersTrace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		tc := newTracedCluster(t)
		leader := tc.waitLeader(convergeTimeout, tc.Tags()...)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctx, root := tc.app.Tracer("test").Start(ctx, "app.call")
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+tc.Node(leader).running.HTTPAddr()+"/v1/ids", strings.NewReader(`{"id":"orders|"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		tracing.Propagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
		resp, err := tc.httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /v1/ids: %s", resp.Status)
		}
		root.End()
		poll.Until(t, "the HTTP request's spans", 5*time.Second, 10*time.Millisecond, func() error {
			all := tc.traceByNode(root.SpanContext().TraceID(), leader, "")
			// otelhttp names the span by the method and the route's pattern.
			// The gateway runs a unary call in the request's own context (no gRPC hop between), so
			// the call's stages hang under the HTTP span.
			httpSpans, applied := all["POST /v1/@leader"], all[tracing.SpanRaftApply]
			if len(httpSpans) != 1 || httpSpans[0].Parent().SpanID() != root.SpanContext().SpanID() {
				return fmt.Errorf("want one HTTP server span under the caller's; have %v", keys(all))
			}
			if len(applied) != 1 || applied[0].node != leader {
				return fmt.Errorf("want the call's Raft apply on the leader; have %v", keys(all))
			}
			for id := applied[0].Parent().SpanID(); id != httpSpans[0].SpanContext().SpanID(); {
				parent, ok := spanByID(all, id)
				if !ok {
					return fmt.Errorf("the leader's Raft apply span does not lead back to the HTTP span")
				}
				id = parent.Parent().SpanID()
			}
			return nil
		})
	})
}

// spanByID finds the span id among all.
func spanByID(all map[string][]tracedSpan, id trace.SpanID) (tracedSpan, bool) {
	for _, spans := range all {
		for _, s := range spans {
			if s.SpanContext().SpanID() == id {
				return s, true
			}
		}
	}
	return tracedSpan{}, false
}
