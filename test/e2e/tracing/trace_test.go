package tracing

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/poll"
)

// rootName is the application's span around the call.
const rootName = "e2e identity"

// stage is a span of the identity's path that the trace must show once on its node, under
// that node's server span and, for the Raft round's stages, under idnode.raft.apply.
type stage struct {
	name     string
	onLeader bool // else on the follower the call went through
	inRound  bool // under the leader's idnode.raft.apply
}

// stages are the spans docs/TRACING.md lists under a call sent to a follower.
var stages = []stage{
	{name: "idnode.batch.wait"},
	{name: "idnode.relay"},
	{name: "idnode.batch.wait", onLeader: true},
	{name: "idnode.raft.apply", onLeader: true},
	{name: "idnode.raft.log_write", onLeader: true, inRound: true},
	{name: "idnode.raft.follower_ack", onLeader: true, inRound: true},
	{name: "idnode.fsm.apply", onLeader: true, inRound: true},
}

// node is the tag of the node that records st.
func (st stage) node(leader, follower string) string {
	if st.onLeader {
		return leader
	}
	return follower
}

// TestIdentityThroughFollowerIsOneTrace makes one identity through a follower of a three-node
// cluster, with the application's span around the call, and checks that the Collector
// received it as one trace: the application's span, the client's, the follower's server span and its relay,
// the leader's server span and the stages of the Raft round under it, each on its node.
func TestIdentityThroughFollowerIsOneTrace(t *testing.T) {
	col := startCollector(t)
	c := e2etest.StartClusterWith(t, func(string) e2etest.NodeOpts {
		return e2etest.NodeOpts{Env: []string{
			// The protocol is the default, http/protobuf; the test's own spans go over gRPC.
			"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + col.OTLPHTTP,
			"OTEL_TRACES_SAMPLER=always_on",
			"OTEL_BSP_SCHEDULE_DELAY=100",
		}}
	})
	leader := c.Leader()
	follower := c.Others(leader)[0]
	tp := applicationTracing(t, col)
	traceID, rootID := identityThrough(t, tp, c.Node(follower).GRPCAddr)
	t.Logf("trace %s: leader %s, follower %s", traceID, leader, follower)

	var spans []span
	poll.Until(t, "every span of trace "+traceID+" in the Collector's file", traceTimeout, tracePoll, func() (err error) {
		if spans, err = col.trace(traceID); err != nil {
			return err
		}
		if err := allArrived(spans, rootID, leader, follower); err != nil {
			return fmt.Errorf("%w; so far:\n%s", err, outline(spans))
		}
		return nil
	})
	for _, problem := range traceProblems(spans, traceID, rootID, leader, follower) {
		t.Error(problem)
	}
	if t.Failed() {
		t.Logf("the trace as the Collector wrote it:\n%s", outline(spans))
	}
	drawTrace(t, traceID, spans, leader, follower)
}

// identityThrough takes one identity through the node at addr alone, with the Go client traced
// by tp, inside a span of the application's, and exports the application's spans at once. It
// returns the trace's id and the application's span's.
func identityThrough(t *testing.T, tp *sdktrace.TracerProvider, addr string) (traceID, rootID string) {
	t.Helper()
	ctx := e2etest.RPCCtx(t)
	cl, err := client.Dial(ctx, []string{addr}, client.WithTracerProvider(tp))
	if err != nil {
		t.Fatalf("client.Dial(%s): %v", addr, err)
	}
	defer cl.Close(ctx)
	ctx, root := tp.Tracer("github.com/idnode/idnode/test/e2e/tracing").Start(ctx, rootName)
	_, err = cl.NextIdentity(ctx, "traced", 1)
	root.End()
	if err != nil {
		t.Fatalf("NextIdentity through %s: %v", addr, err)
	}
	if err := tp.ForceFlush(ctx); err != nil {
		t.Fatalf("exporting the application's spans: %v", err)
	}
	return root.SpanContext().TraceID().String(), root.SpanContext().SpanID().String()
}

// allArrived says which spans the trace still lacks: the application's span (rootID) and
// the client's, a server span on the follower and on the leader, and every stage on its node.
// The nodes export on their own schedules, and the Collector writes what the test's own
// exporter sent it on its own: spans flushed first may reach its file last.
func allArrived(spans []span, rootID, leader, follower string) error {
	var missing []string
	if !slices.ContainsFunc(spans, func(s span) bool { return s.ID == rootID }) {
		missing = append(missing, "the application's span")
	}
	if !slices.ContainsFunc(spans, func(s span) bool { return s.Kind == kindClient && s.Service == clientService }) {
		missing = append(missing, "the client's span")
	}
	for _, tag := range []string{follower, leader} {
		if !slices.ContainsFunc(spans, func(s span) bool { return s.Kind == kindServer && s.Instance == tag }) {
			missing = append(missing, "a server span on "+tag)
		}
	}
	for _, st := range stages {
		tag := st.node(leader, follower)
		if !slices.ContainsFunc(spans, func(s span) bool { return s.Name == st.name && s.Instance == tag }) {
			missing = append(missing, st.name+" on "+tag)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d spans so far, none for %s", len(spans), strings.Join(missing, ", "))
	}
	return nil
}

// traceProblems checks the trace's shape: one trace id; the application's span → the client's
// span → the follower's server span → idnode.relay → the leader's server span → each stage of
// the leader; each stage on the node that did it, naming it in idnode.node_id.
func traceProblems(spans []span, traceID, rootID, leader, follower string) []string {
	var problems []string
	byID := map[string]span{}
	for _, s := range spans {
		if s.TraceID != traceID {
			problems = append(problems, fmt.Sprintf("span %s %q is of trace %s, not %s", s.ID, s.Name, s.TraceID, traceID))
		}
		byID[s.ID] = s
	}
	// under says whether s has the span id above it (its parent, or further up).
	under := func(s span, id string) bool {
		for seen := 0; s.Parent != "" && seen < len(spans); seen++ {
			if s.Parent == id {
				return true
			}
			s = byID[s.Parent]
		}
		return false
	}
	root, ok := byID[rootID]
	if !ok || root.Service != clientService || root.Parent != "" {
		problems = append(problems, fmt.Sprintf("the application's span %s is not the trace's root of service %s (%+v)", rootID, clientService, root))
	}
	one := func(what string, match func(s span) bool) (span, bool) {
		var found []span
		for _, s := range spans {
			if match(s) {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			problems = append(problems, fmt.Sprintf("%d spans for %s, want 1", len(found), what))
			return span{}, false
		}
		return found[0], true
	}
	followerServer, ok := one("the follower's server span", func(s span) bool { return s.Kind == kindServer && s.Instance == follower })
	if ok {
		parent := byID[followerServer.Parent]
		if parent.Kind != kindClient || parent.Service != clientService || !under(parent, rootID) {
			problems = append(problems, fmt.Sprintf("the follower's server span %q has parent %q (service %q, kind %d): want the client's span under the application's",
				followerServer.Name, parent.Name, parent.Service, parent.Kind))
		}
	}
	found := map[stage]span{}
	for _, st := range stages {
		tag := st.node(leader, follower)
		s, ok := one(st.name+" on "+tag, func(s span) bool { return s.Name == st.name && s.Instance == tag })
		if !ok {
			continue
		}
		found[st] = s
		if s.Attrs["idnode.node_id"] != tag {
			problems = append(problems, fmt.Sprintf("%s on %s says idnode.node_id %q", st.name, tag, s.Attrs["idnode.node_id"]))
		}
	}
	relay := found[stage{name: "idnode.relay"}]
	round := found[stage{name: "idnode.raft.apply", onLeader: true}]
	// A relay the forwarder sent again (the leader refused a hop that came before the follower
	// knew the cluster secret) has a server span on the leader per attempt, each under the
	// relay; the one that did the work holds the Raft round, and the stages below are checked
	// against it (none found: each stage on the leader is named).
	var leaderServer span
	for _, s := range spans {
		if s.Kind != kindServer || s.Instance != leader {
			continue
		}
		if !under(s, relay.ID) {
			problems = append(problems, fmt.Sprintf("the leader's server span %q has parent %q: want it under idnode.relay", s.Name, byID[s.Parent].Name))
		}
		if round.ID != "" && under(round, s.ID) {
			leaderServer = s
		}
	}
	for _, st := range stages {
		s, ok := found[st]
		if !ok {
			continue
		}
		above, want := followerServer, "the follower's server span"
		switch {
		case st.inRound:
			above, want = round, "the leader's idnode.raft.apply"
		case st.onLeader:
			above, want = leaderServer, "the leader's server span"
		}
		if !under(s, above.ID) {
			problems = append(problems, fmt.Sprintf("%s on %s has parent %q: want it under %s", st.name, s.Instance, byID[s.Parent].Name, want))
		}
	}
	return problems
}

// outline is the trace as an indented tree, for a failure's message.
func outline(spans []span) string {
	var b strings.Builder
	for _, r := range treeOrder(spans) {
		fmt.Fprintf(&b, "%s%s [%s %s] %v\n", strings.Repeat("  ", r.depth), r.Name, r.Service, r.Instance, r.End.Sub(r.Start))
	}
	return b.String()
}

// row is a span and its depth in the tree.
type row struct {
	span
	depth int
}

// treeOrder is the spans depth first, each span's children by start time; a span whose
// parent never arrived starts a tree of its own.
func treeOrder(spans []span) []row {
	sorted := slices.Clone(spans)
	slices.SortStableFunc(sorted, func(a, b span) int { return a.Start.Compare(b.Start) })
	ids := map[string]bool{}
	children := map[string][]span{}
	for _, s := range sorted {
		ids[s.ID] = true
		children[s.Parent] = append(children[s.Parent], s)
	}
	var rows []row
	var walk func(s span, depth int)
	walk = func(s span, depth int) {
		if len(rows) >= len(spans) { // only a cycle of parents could get here
			return
		}
		rows = append(rows, row{s, depth})
		for _, c := range children[s.ID] {
			walk(c, depth+1)
		}
	}
	for _, s := range sorted {
		if !ids[s.Parent] {
			walk(s, 0)
		}
	}
	return rows
}
