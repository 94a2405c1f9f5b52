package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/test/helpers/jsonlog"
)

type opaque struct{ state int }

type named struct{ id string }

func (n named) String() string { return "node " + n.id }

// raftLines returns a raft logger writing JSON at level into buf, with the node's own "node"
// key, and its sink.
func raftLines(buf *bytes.Buffer, level slog.Level) (hclog.Logger, *raftSink) {
	l := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level})).With("node", "A")
	s := newRaftSink(l)
	return s.hclog(), s
}

// lines parses every JSON line in buf, after checking each as a log pipeline would.
func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	if err := jsonlog.CheckAll(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func wantFields(t *testing.T, line map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if fmt.Sprint(line[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %#v, want %#v (line %v)", k, line[k], v, line)
		}
	}
}

// Raft's values come out as values in JSON, not {}, and raft's "node" does not repeat the
// node's own key.
func TestRaftLinesAreReadableJSON(t *testing.T) {
	var buf bytes.Buffer
	raftLog, _ := raftLines(&buf, slog.LevelInfo)
	raftLog.Info("entering candidate state", "node", named{"A"}, "term", uint64(2), "leader", &opaque{1},
		"peer", struct{ ID, Address string }{"B", "raft-b:7000"}, "error", errors.New("boom"), "took", 3*time.Millisecond)
	got := lines(t, &buf)
	wantFields(t, got[0], map[string]any{"node": "A", "raft_node": "node A", "component": "raft", "term": 2, "leader": "&{state:1}",
		"peer": "{ID:B Address:raft-b:7000}", "error": "boom", "took": float64(3 * time.Millisecond)})
}

// Raft's keys in three styles come out in one (snake_case), and its servers as their IDs and
// addresses rather than Go struct dumps.
func TestRaftLinesUseOneKeyStyle(t *testing.T) {
	var buf bytes.Buffer
	raftLog, _ := raftLines(&buf, slog.LevelInfo)
	servers := []raft.Server{
		{Suffrage: raft.Voter, ID: "A-1", Address: "raft-a:7000"},
		{Suffrage: raft.Nonvoter, ID: "B-2", Address: "raft-b:7000"},
	}
	raftLog.Info("initial configuration", "index", uint64(1), "servers", hclog.Fmt("%+v", servers))
	raftLog.Info("entering follower state", "leader-address", raft.ServerAddress(""), "leader-id", raft.ServerID(""))
	raftLog.Info("pre-vote successful, starting election", "tally", 2, "votesNeeded", 2)
	raftLog.Info("pipelining replication", "peer", servers[1])
	raftLog.Info("heartbeat", "peer", raft.ServerAddress("raft-b:7000"), "backoff time", 10*time.Millisecond)
	raftLog.Info("unknown address", "peer", raft.ServerAddress("raft-z:7000"))
	got := lines(t, &buf)
	if len(got) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(got), buf.String())
	}
	list, _ := json.Marshal(got[0]["servers"])
	if want := `[{"address":"raft-a:7000","id":"A-1","suffrage":"voter"},{"address":"raft-b:7000","id":"B-2","suffrage":"nonvoter"}]`; string(list) != want {
		t.Errorf("servers = %s, want %s", list, want)
	}
	wantFields(t, got[1], map[string]any{"leader_address": "", "leader_id": ""})
	wantFields(t, got[2], map[string]any{"votes_needed": 2, "tally": 2})
	wantFields(t, got[3], map[string]any{"peer": "B-2", "peer_address": "raft-b:7000"})
	wantFields(t, got[4], map[string]any{"peer": "B-2", "peer_address": "raft-b:7000", "backoff_time": float64(10 * time.Millisecond)})
	wantFields(t, got[5], map[string]any{"peer_address": "raft-z:7000"})
	if _, ok := got[5]["peer"]; ok {
		t.Errorf("an address no configuration named got a peer ID: %v", got[5])
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"leader-address": "leader_address", "votesNeeded": "votes_needed", "backoff time": "backoff_time",
		"server-id": "server_id", "last-leader-addr": "last_leader_addr", "error": "error", "ID": "id",
		"lastIndex2": "last_index2", " odd--key ": "odd_key",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
		if !jsonlog.SnakeCase(want) {
			t.Errorf("jsonlog.SnakeCase(%q) = false", want)
		}
	}
}

// A first election is news, not a warning, and so is its split vote (raft restarting it); an
// election after a leader was lost stays one, its restart too, and a vote or pre-vote refused
// because the voter follows a leader, or because the candidate's log lags, is news. A node
// closing its own transport logs no error.
func TestRaftLineLevels(t *testing.T) {
	var buf bytes.Buffer
	raftLog, _ := raftLines(&buf, slog.LevelInfo)
	raftLog.Warn("heartbeat timeout reached, starting election", "last-leader-addr", raft.ServerAddress(""), "last-leader-id", raft.ServerID(""))
	raftLog.Warn("Election timeout reached, restarting election")
	raftLog.Warn("heartbeat timeout reached, starting election", "last-leader-addr", raft.ServerAddress("raft-b:7000"), "last-leader-id", raft.ServerID("B-2"))
	raftLog.Warn("Election timeout reached, restarting election")
	raftLog.Warn("rejecting vote request since we have a leader", "from", raft.ServerID("B-2"), "leader", raft.ServerAddress("raft-a:7000"))
	raftLog.Warn("rejecting pre-vote request since we have a leader", "from", raft.ServerID("C-3"), "leader", raft.ServerAddress("raft-a:7000"))
	raftLog.Warn("rejecting pre-vote request since our last term is greater", "candidate", raft.ServerID("B-2"), "last-term", 2, "last-candidate-term", 1)
	raftLog.Warn("rejecting vote request since our last index is greater", "candidate", raft.ServerID("C-3"), "last-index", 9, "last-candidate-index", 7)
	raftLog.Named("transport").Error("failed to decode incoming command", "error", raft.ErrTransportShutdown)
	got := lines(t, &buf)
	if len(got) != 8 {
		t.Fatalf("%d lines, want 8 (the transport's shutdown at debug):\n%s", len(got), buf.String())
	}
	wantFields(t, got[0], map[string]any{"level": "INFO", "last_leader_id": ""})
	wantFields(t, got[1], map[string]any{"level": "INFO", "msg": "Election timeout reached, restarting election"})
	wantFields(t, got[2], map[string]any{"level": "WARN", "last_leader_id": "B-2"})
	wantFields(t, got[3], map[string]any{"level": "WARN", "msg": "Election timeout reached, restarting election"})
	wantFields(t, got[4], map[string]any{"level": "INFO", "from": "B-2"})
	wantFields(t, got[5], map[string]any{"level": "INFO", "from": "C-3"})
	wantFields(t, got[6], map[string]any{"level": "INFO", "candidate": "B-2"})
	wantFields(t, got[7], map[string]any{"level": "INFO", "candidate": "C-3"})
}

// manualTimers runs the summaries' timers when the test says.
type manualTimers struct{ pending []func() }

type manualTimer struct{ stopped bool }

func (m *manualTimer) Stop() bool { m.stopped = true; return true }

func (m *manualTimers) after(_ time.Duration, f func()) stopper {
	t := &manualTimer{}
	m.pending = append(m.pending, func() {
		if !t.stopped {
			f()
		}
	})
	return t
}

// fire runs the timers due now (not those they set).
func (m *manualTimers) fire() {
	due := m.pending
	m.pending = nil
	for _, f := range due {
		f()
	}
}

// While a peer does not answer, raft complains about it at every heartbeat and replication
// attempt: the first complaint is written at once, then one line per interval with how many
// followed and the last error; an interval without any ends the run.
func TestRaftPeerFailuresAreSummarised(t *testing.T) {
	var buf bytes.Buffer
	raftLog, sink := raftLines(&buf, slog.LevelInfo)
	timers := &manualTimers{}
	sink.peers.after = timers.after
	peerB := raft.Server{Suffrage: raft.Voter, ID: "B-2", Address: "raft-b:7000"}
	peerC := raft.Server{Suffrage: raft.Voter, ID: "C-3", Address: "raft-c:7000"}
	raftLog.Info("initial configuration", "index", uint64(1), "servers", hclog.Fmt("%+v", []raft.Server{peerB, peerC}))
	fail := func(n int, peer raft.Server) {
		for i := range n {
			raftLog.Error("failed to appendEntries to", "peer", peer, "error", fmt.Errorf("dial %s: refused %d", peer.Address, i))
			raftLog.Error("failed to heartbeat to", "peer", peer.Address, "backoff time", 10*time.Millisecond, "error", errors.New("refused"))
		}
	}
	fail(40, peerB)
	fail(1, peerC)
	raftLog.Warn("failed to contact", "server-id", peerB.ID, "time", 600*time.Millisecond)
	fail(40, peerB)
	timers.fire() // B: 160 more failures, C: one more
	fail(3, peerB)
	timers.fire() // B: 6 more; C: none, its run ends
	timers.fire() // B: none, its run ends
	fail(1, peerB)
	fail(1, peerC)
	sink.close() // B and C: one more each

	got := lines(t, &buf)[1:]
	var summary []string
	for _, l := range got {
		if l["level"] != "WARN" {
			t.Errorf("level %v, want WARN: %v", l["level"], l)
		}
		s := fmt.Sprintf("%v %v", l["msg"], l["peer"])
		if l["failures"] != nil {
			s += fmt.Sprintf(" failures=%v last=%q", l["failures"], l["last_error"])
		}
		summary = append(summary, s)
	}
	want := []string{
		"failed to appendEntries to B-2",
		"failed to appendEntries to C-3",
		`raft keeps failing with a peer B-2 failures=160 last="refused"`,
		`raft keeps failing with a peer C-3 failures=1 last="refused"`,
		`raft keeps failing with a peer B-2 failures=6 last="refused"`,
		"failed to appendEntries to B-2",
		"failed to appendEntries to C-3",
		`raft keeps failing with a peer B-2 failures=1 last="refused"`,
		`raft keeps failing with a peer C-3 failures=1 last="refused"`,
	}
	if strings.Join(summary, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
	wantFields(t, got[0], map[string]any{"peer_address": "raft-b:7000", "error": "dial raft-b:7000: refused 0", "component": "raft"})
	wantFields(t, got[2], map[string]any{"peer": "B-2", "interval": float64(peerSummaryInterval), "last_msg": "failed to heartbeat to", "component": "raft"})

	buf.Reset()
	fail(2, peerB)
	if n := len(lines(t, &buf)); n != 4 {
		t.Errorf("after close, %d lines for 2 failures, want each written (4)", n)
	}
}
