package tracing

import (
	"strings"
	"testing"
	"time"
)

// wholeTrace is the tree docs/TRACING.md shows for an identity sent to follower A of leader C,
// as the query API gives it back, with span ids s1, s2, ...
func wholeTrace() []span {
	at := time.Unix(1_700_000_000, 0)
	mk := func(id, parent, name string, kind int, service, node string) span {
		s := span{TraceID: "t1", ID: id, Parent: parent, Name: name, Kind: kind, Service: service, Instance: node,
			Start: at, End: at.Add(time.Millisecond), Attrs: map[string]string{}}
		if service == "idnode" && strings.HasPrefix(name, "idnode.") {
			s.Attrs["idnode.node_id"] = node
		}
		return s
	}
	return []span{
		mk("s1", "", rootName, 1, clientService, ""),
		mk("s2", "s1", "idnode.v1.IdService/NextIdentity", kindClient, clientService, ""),
		mk("s3", "s2", "idnode.v1.IdService/NextIdentity", kindServer, "idnode", "A"),
		mk("s4", "s3", "idnode.batch.wait", 1, "idnode", "A"),
		mk("s5", "s3", "idnode.relay", 1, "idnode", "A"),
		mk("s6", "s5", "idnode.forward.v1.Forward/NextIdentities", kindClient, "idnode", "A"),
		mk("s7", "s6", "idnode.forward.v1.Forward/NextIdentities", kindServer, "idnode", "C"),
		mk("s8", "s7", "idnode.batch.wait", 1, "idnode", "C"),
		mk("s9", "s7", "idnode.raft.apply", 1, "idnode", "C"),
		mk("s10", "s9", "idnode.raft.log_write", 1, "idnode", "C"),
		mk("s11", "s9", "idnode.raft.follower_ack", 1, "idnode", "C"),
		mk("s12", "s9", "idnode.fsm.apply", 1, "idnode", "C"),
	}
}

// TestTraceShapeChecks holds the checks of TestIdentityThroughFollowerIsOneTrace to the
// defects they are there to catch, on traces made up here: each broken trace must be named.
func TestTraceShapeChecks(t *testing.T) {
	if problems := traceProblems(wholeTrace(), "t1", "s1", "C", "A"); len(problems) > 0 {
		t.Fatalf("the whole trace has problems: %v", problems)
	}
	if err := allArrived(wholeTrace(), "s1", "C", "A"); err != nil {
		t.Fatalf("the whole trace has not arrived: %v", err)
	}
	breaks := []struct {
		name   string
		mutate func(spans []span) []span
		want   string
	}{
		{"the relay starts a trace of its own at the leader", func(s []span) []span { s[6].Parent = ""; return s },
			"the leader's server span"},
		{"the client sends no trace context", func(s []span) []span { s[2].Parent = ""; return s },
			"the follower's server span"},
		{"the log write is recorded on a follower", func(s []span) []span { s[9].Instance = "B"; return s },
			"idnode.raft.log_write on C"},
		{"the FSM apply names another node", func(s []span) []span { s[11].Attrs["idnode.node_id"] = "A"; return s },
			"idnode.fsm.apply on C says idnode.node_id"},
		{"a stage hangs under the server span, not the Raft apply", func(s []span) []span { s[10].Parent = "s7"; return s },
			"idnode.raft.follower_ack on C has parent"},
		{"the batch wait is made twice", func(s []span) []span { return append(s, s[7]) },
			"2 spans for idnode.batch.wait on C"},
		{"a span of another trace", func(s []span) []span { s[4].TraceID = "t2"; return s },
			"is of trace t2"},
		{"an attempt of the relay reaches the leader outside it", func(s []span) []span { s = refusedAttempt(s); s[len(s)-1].Parent = ""; return s },
			"has parent \"\": want it under idnode.relay"},
		{"the Raft round hangs under the refused attempt", func(s []span) []span { s = refusedAttempt(s); s[8].Parent = "s7r"; return s },
			"idnode.batch.wait on C has parent"},
	}
	for _, b := range breaks {
		problems := strings.Join(traceProblems(b.mutate(wholeTrace()), "t1", "s1", "C", "A"), "\n")
		if !strings.Contains(problems, b.want) {
			t.Errorf("%s: problems %q, want one naming %q", b.name, problems, b.want)
		}
	}
	if problems := traceProblems(refusedAttempt(wholeTrace()), "t1", "s1", "C", "A"); len(problems) > 0 {
		t.Errorf("a trace whose relay was sent again has problems: %v", problems)
	}
	if err := allArrived(wholeTrace()[:9], "s1", "C", "A"); err == nil || !strings.Contains(err.Error(), "idnode.raft.log_write on C") {
		t.Errorf("a trace without its Raft stages: allArrived says %v", err)
	}
	// The application's spans come through the Collector on their own, and may be written last.
	if err := allArrived(wholeTrace()[2:], "s1", "C", "A"); err == nil || !strings.Contains(err.Error(), "the application's span, the client's span") {
		t.Errorf("a trace without the application's spans: allArrived says %v", err)
	}
}

// refusedAttempt adds to a trace the spans of a relay's first attempt, which the leader
// refused (it came before the follower knew the cluster secret): a client span under the
// relay and the leader's server span under it, s6r and s7r.
func refusedAttempt(spans []span) []span {
	client, server := spans[5], spans[6]
	client.ID, server.ID, server.Parent = "s6r", "s7r", "s6r"
	return append(spans, client, server)
}
