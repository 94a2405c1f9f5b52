package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/jsonlog"
)

// What an operator's log pipeline gets from a cluster.
const (
	deadPeerFor       = 60 * time.Second       // how long a node stays dead in TestDeadPeerIsSummarisedInTheLogs
	deadPeerMaxLines  = 10                     // warnings about it a survivor may write in that minute
	deadPeerCallEvery = 500 * time.Millisecond // the survivors serve calls meanwhile
)

// logLines is the JSON lines node p wrote from byte offset from on, each checked as a log
// pipeline reads it (jsonlog.Check: one object, no key twice, keys in snake_case), without
// the harness's start and exit markers.
func logLines(t *testing.T, p *e2etest.Proc, from int) []map[string]any {
	t.Helper()
	out := p.Logs.String()
	if len(out) >= e2etest.MaxLogBytes {
		t.Fatalf("node %s wrote more than the harness keeps (%d bytes)", p.Tag, e2etest.MaxLogBytes)
	}
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out[from:]), "\n") {
		if line == "" || strings.HasPrefix(line, "----- ") {
			continue
		}
		if err := jsonlog.Check([]byte(line)); err != nil {
			t.Errorf("node %s: %v", p.Tag, err)
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("node %s: %v", p.Tag, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// isAboveInfo reports whether a log line is a warning or an error.
func isAboveInfo(l map[string]any) bool { return l["level"] != "INFO" && l["level"] != "DEBUG" }

// aboveInfo fails the test for every line of node tag above INFO, saying when it was written.
func aboveInfo(t *testing.T, when, tag string, lines []map[string]any) {
	t.Helper()
	for _, l := range lines {
		if isAboveInfo(l) {
			t.Errorf("%s, node %s logged %v: %v", when, tag, l["level"], l)
		}
	}
}

// disturbedStart says why a cluster's start, its nodes' lines by tag, was not a normal one, or
// "" when it was: a node stood for election after the first leader had won (it heard no
// heartbeat in time), a peer answered a call later than the transport's timeout (2 s; raft's
// line ends in "i/o timeout"), or the leader heard from a follower too late for its lease
// (raft's "failed to contact"). All happen when the tests beside this one starve the nodes of
// CPU, and each makes raft warn, rightly: such a start can only show that idnode's own lines
// stay at INFO.
func disturbedStart(t *testing.T, lines map[string][]map[string]any) string {
	t.Helper()
	at := func(l map[string]any) time.Time {
		when, err := time.Parse(time.RFC3339Nano, fmt.Sprint(l["time"]))
		if err != nil {
			t.Fatalf("a line without a time: %v", l)
		}
		return when
	}
	var won time.Time
	for _, ls := range lines {
		for _, l := range ls {
			if l["msg"] == "election won" && (won.IsZero() || at(l).Before(won)) {
				won = at(l)
			}
		}
	}
	for tag, ls := range lines {
		for _, l := range ls {
			switch {
			case l["component"] == "raft" && strings.HasSuffix(fmt.Sprint(l["error"]), "i/o timeout"):
				return fmt.Sprintf("node %s: a peer answered late: %v", tag, l)
			case l["component"] == "raft" && l["msg"] == "failed to contact":
				return fmt.Sprintf("node %s: a follower answered too late for the leader's lease: %v", tag, l)
			case l["msg"] == "entering candidate state" && !won.IsZero() && at(l).After(won):
				return fmt.Sprintf("node %s stood for election after the first leader won at %s: %v", tag, won.Format(time.StampMicro), l)
			}
		}
	}
	return ""
}

// idnodeLines is lines without raft's.
func idnodeLines(lines []map[string]any) []map[string]any {
	var own []map[string]any
	for _, l := range lines {
		if l["component"] != "raft" {
			own = append(own, l)
		}
	}
	return own
}

// While one node of three is dead for a minute, each survivor writes at most a few warnings
// about it (raft's ~160 errors a minute about a peer are summarised), every line valid JSON with
// snake_case keys; the cluster serves meanwhile, and takes the node back.
func TestDeadPeerIsSummarisedInTheLogs(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t, "--log-format", "json")
	deadTag := c.Leader()
	dead := c.Node(deadTag)
	deadID := raftIDOf(t, c, deadTag)
	survivors := c.Others(deadTag)
	from := map[string]int{}
	for _, tag := range survivors {
		from[tag] = len(c.Node(tag).Logs.String())
	}
	dead.Kill9()

	served := 0
	tick := time.NewTicker(deadPeerCallEvery)
	defer tick.Stop()
	for end, running := time.After(deadPeerFor), true; running; {
		select {
		case <-tick.C:
			_, err := c.Ids[survivors[served%2]].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "logs|", RequestId: c.RequestID()})
			switch {
			case err == nil:
				served++
			case !e2etest.Retryable(err):
				t.Fatalf("Generate while %s is dead: %v", deadTag, err)
			}
		case <-end:
			running = false
		}
	}
	// That they serve is the claim, not how fast: a loaded machine holds elections between
	// the two survivors, and a call waits out each (the rate is a benchmark's to measure).
	t.Logf("the survivors answered %d calls in %v, one asked every %v", served, deadPeerFor, deadPeerCallEvery)
	if served == 0 {
		t.Errorf("the survivors answered no call in %v", deadPeerFor)
	}
	for _, tag := range survivors {
		// Warnings and errors count: raft's unsummarised complaints are those. Its INFO lines
		// name the dead node once per election the node wins ("added peer, starting
		// replication"), and a loaded machine holds many.
		var about, warned []string
		for _, l := range logLines(t, c.Node(tag), from[tag]) {
			if text, _ := json.Marshal(l); strings.Contains(string(text), deadID) || strings.Contains(string(text), dead.RaftAddr) {
				about = append(about, string(text))
				if isAboveInfo(l) {
					warned = append(warned, string(text))
				}
			}
		}
		t.Logf("node %s: %d lines about dead node %s in %v, %d of them warnings:\n%s", tag, len(about), deadTag, deadPeerFor, len(warned), strings.Join(about, "\n"))
		if len(warned) > deadPeerMaxLines || len(warned) == 0 {
			t.Errorf("node %s wrote %d warnings about dead node %s in %v, want 1 to %d:\n%s",
				tag, len(warned), deadTag, deadPeerFor, deadPeerMaxLines, strings.Join(warned, "\n"))
		}
	}
	dead.Restart()
	c.WaitServing(deadTag)
	for _, p := range c.Nodes {
		p.Stop()
		logLines(t, p, 0)
	}
}

// raftIDOf is node tag's Raft member ID (tag and incarnation), as Status reports it.
func raftIDOf(t *testing.T, c *e2etest.Cluster, tag string) string {
	t.Helper()
	st, err := c.Admin[tag].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
	if err != nil {
		t.Fatalf("Status via %s: %v", tag, err)
	}
	for _, n := range st.GetNodes() {
		if n.GetTag() == tag && n.GetId() != "" {
			return n.GetId()
		}
	}
	t.Fatalf("Status via %s names no member ID for %s: %v", tag, tag, st)
	return ""
}

// A normal start and stop logs nothing above INFO: a node alone, and a cluster of three
// forming, electing its first leader and losing a follower that stops cleanly (the others
// report the lost peer; the follower says nothing alarming about its own stop). An admin call
// made on a follower and refused by the leader is logged once in the whole cluster, with who
// asked. A node without HTTP does not claim an HTTP address. A cluster's start that the machine
// disturbed (disturbedStart) holds only idnode's own lines to INFO.
func TestNormalStartAndStopLogNothingAboveInfo(t *testing.T) {
	t.Parallel()
	single := e2etest.StartNode(t, e2etest.NodeOpts{Tag: "S", Extra: []string{"--log-format", "json"}})
	single.WaitServing(e2etest.ServeTimeout)
	single.Stop()
	lines := logLines(t, single, 0)
	aboveInfo(t, "a single node's start and stop", "S", lines)
	for _, l := range lines {
		if l["msg"] == "idnode serving" && l["http"] != "off" {
			t.Errorf("a node without HTTP logged http=%v", l["http"])
		}
	}

	c := e2etest.StartCluster(t, "--log-format", "json")
	leader := c.Leader()
	follower := c.Others(leader)[0]
	// Registration and the cluster's first settings follow the election: the start is over
	// when every node says it is registered.
	for _, p := range c.Nodes {
		e2etest.Eventually(t, e2etest.ServeTimeout, "node "+p.Tag+" registered", func() error {
			if !strings.Contains(p.Logs.String(), `"msg":"registered in the cluster"`) {
				return fmt.Errorf("no registration line yet")
			}
			return nil
		})
	}
	started := map[string][]map[string]any{}
	for _, p := range c.Nodes {
		started[p.Tag] = logLines(t, p, 0)
	}
	why := disturbedStart(t, started)
	if why != "" {
		t.Logf("the cluster's start was not a normal one, so only idnode's own lines are held to INFO: %s", why)
	}
	for tag, lines := range started {
		if why != "" {
			lines = idnodeLines(lines)
		}
		aboveInfo(t, "a cluster's start", tag, lines)
	}

	from := map[string]int{}
	for _, p := range c.Nodes {
		from[p.Tag] = len(p.Logs.String())
	}
	// Asked again through an election, as idctl would: a refusal for want of a leader is logged
	// too (at INFO, code Unavailable), so the audit below counts only the answer.
	_, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.RemoveNodeResponse, error) {
		return c.Admin[follower].RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "Q"})
	})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("RemoveNode(Q) via %s: %v, want NOT_FOUND", follower, err)
	}
	// The node logs the refusal as its answer leaves: the line may reach its output after the
	// caller has the answer.
	var audit []map[string]any
	e2etest.Eventually(t, e2etest.ServeTimeout, "the audit line of the refused RemoveNode", func() error {
		audit = nil
		for _, p := range c.Nodes {
			for _, l := range logLines(t, p, from[p.Tag]) {
				if l["msg"] == "admin call refused" && l["code"] != "Unavailable" {
					audit = append(audit, l)
				}
			}
		}
		if len(audit) == 0 {
			return fmt.Errorf("no audit line yet")
		}
		return nil
	})
	if len(audit) != 1 || audit[0]["node"] != follower || audit[0]["method"] != "RemoveNode" || audit[0]["code"] != "NotFound" ||
		audit[0]["credential"] != "loopback" || !strings.HasPrefix(fmt.Sprint(audit[0]["peer"]), "127.0.0.1:") {
		t.Errorf("audit lines for one refused RemoveNode via %s: %v; want one, on %s, with code NotFound, credential loopback and the peer", follower, audit, follower)
	}

	stopped := c.Node(follower)
	begin := len(stopped.Logs.String())
	stopped.Stop()
	aboveInfo(t, "a follower's clean stop", follower, logLines(t, stopped, begin))
}
