package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
)

// answerLostCluster commits every proposal, but its first lose proposals answer
// raft.ErrLeadershipLost: a leader that stepped down after the entry was committed.
type answerLostCluster struct {
	*fakeCluster
	lose  int
	index uint64
}

func (c *answerLostCluster) Apply(_ context.Context, data []byte) (any, error) {
	c.index++
	out := c.fsm.Apply(&raft.Log{Type: raft.LogCommand, Data: data, Index: c.index})
	if c.lose > 0 {
		c.lose--
		return nil, raft.ErrLeadershipLost
	}
	if err, ok := out.(error); ok {
		return nil, err
	}
	return out, nil
}

// A node whose registration was committed but whose answer was lost finds itself registered on
// its next try, and still says once that it is registered: operators and tests wait for that
// line, and server-side IDs flow from then on.
func TestRegistrationWhoseAnswerWasLostIsLogged(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	c := &answerLostCluster{fakeCluster: &fakeCluster{leader: true, fsm: fsm.New()}, lose: 1}
	s := New(Config{Tag: "A", RaftAddress: "127.0.0.1:7000", GRPCAddress: "127.0.0.1:7001",
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))}, c, nil)
	t.Cleanup(s.Close)
	ctx := context.Background()

	if err := s.ensureRegistered(ctx); err == nil {
		t.Fatal("the first registration lost its answer, yet ensureRegistered reported success")
	}
	if s.registered.Load() {
		t.Fatal("registered before any try succeeded")
	}
	if !s.isRegistered() {
		t.Fatal("the first registration was committed, yet the FSM does not show the node")
	}
	for range 2 {
		if err := s.ensureRegistered(ctx); err != nil {
			t.Fatalf("registration after the lost answer: %v", err)
		}
	}
	if !s.registered.Load() {
		t.Error("not registered after a successful try")
	}
	if n := strings.Count(logs.String(), `"msg":"registered in the cluster"`); n != 1 {
		t.Errorf("%d registration lines, want 1:\n%s", n, logs.String())
	}
}
