package fsm

import (
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Incarnations and raft ids are meant to be unique, but a log can hold two nodes that share
// one: a data dir copied to make a second node keeps its incarnation, and an id may be
// registered for one tag before the node of the tag it names registers. Every replica must
// still answer a registration alike; Go's map order differs from replica to replica, so each
// trial below is a new replica, and before the lookups were made deterministic about half of
// them named the other node.
func TestRegistrationsFindTheSameNodeOnEveryReplica(t *testing.T) {
	const trials = 64
	for range trials {
		f := New()
		for _, tag := range []string{"A", "B", "C"} {
			mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: tag, Incarnation: "copied"})
		}
		// A node retrying a registration with no tag finds the one registered with its
		// incarnation: of several, the first by tag.
		got, ok := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Incarnation: "copied"}).(Node)
		if !ok || got.Tag != "A" {
			t.Fatalf("a registration with the incarnation of A, B and C answered %+v; want node A", got)
		}
	}
	for range trials {
		f := New()
		// B registers with the id A's own registration derives; then A registers.
		mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: "B", Id: "A-i1"})
		mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: "A", Incarnation: "i1"})
		got, ok := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Id: "A-i1"}).(Node)
		if !ok || got.Tag != "A" {
			t.Fatalf("a registration with the id A and B share answered %+v; want node A", got)
		}
	}
}
