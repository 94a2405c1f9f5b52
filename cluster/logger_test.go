package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/jsonlog"
)

type opaque struct{ state int }

type named struct{ id string }

func (n named) String() string { return "node " + n.id }

// Raft's values come out as values in JSON, not {}, and raft's "node" does not repeat the
// node's own key.
func TestRaftLinesAreReadableJSON(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, nil)).With("node", "A")
	raftLog := newRaftLogger(l)
	raftLog.Info("entering candidate state", "node", named{"A"}, "term", uint64(2), "leader", &opaque{1},
		"peer", struct{ ID, Address string }{"B", "raft-b:7000"}, "error", errors.New("boom"), "took", 3*time.Millisecond)
	if err := jsonlog.CheckAll(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"node": "A", "raft_node": "node A", "component": "raft", "term": float64(2), "leader": "&{state:1}",
		"peer": "{ID:B Address:raft-b:7000}", "error": "boom", "took": float64(3 * time.Millisecond)}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s = %#v, want %#v (line %s)", k, line[k], v, buf.Bytes())
		}
	}
}
