package fsm

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func fenceOf(id string) *raftv1.ReplicaFence {
	return &raftv1.ReplicaFence{Id: id, Tag: "B", Index: 40, Digest: bytes.Repeat([]byte{1}, DigestLen), MajorityDigest: bytes.Repeat([]byte{2}, DigestLen), AtMs: 7}
}

// A fence is state: a snapshot carries it and its restore keeps it, a backup leaves it out,
// the member's removal drops it, and the member that joins again with an empty data dir (a
// new incarnation, so a new ID under a new tag) is not fenced.
func TestFenceLastsUntilTheMemberIsRemoved(t *testing.T) {
	f := New()
	first := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: "B", Incarnation: "i1", RaftAddress: "b:7000"}).(Node)
	if err, ok := mustApply(t, f, FenceReplicaCommand, fenceOf(first.ID)).(error); ok {
		t.Fatal(err)
	}
	again := fenceOf(first.ID)
	again.Index = 99
	mustApply(t, f, FenceReplicaCommand, again)
	if got, ok := f.Fence(first.ID); !ok || got.GetIndex() != 40 {
		t.Fatalf("fence of %s: %v %v, want the first (index 40)", first.ID, got, ok)
	}
	restored := mustRestore(t, snapshotBytes(t, f))
	if got, ok := restored.Fence(first.ID); !ok || got.GetIndex() != 40 || got.GetTag() != "B" {
		t.Fatalf("after a restore, fence of %s: %v %v", first.ID, got, ok)
	}
	var backup bytes.Buffer
	if err := f.WriteBackup(&backup, IssueRates{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := mustRestore(t, backup.Bytes()).Fence(first.ID); ok {
		t.Fatal("a backup carried a fence of the cluster it came from")
	}
	mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "B"})
	if got, ok := f.Fence(first.ID); ok {
		t.Fatalf("the removed member is still fenced: %v", got)
	}
	rejoined := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Incarnation: "i2", RaftAddress: "b:7000"}).(Node)
	if rejoined.ID == first.ID {
		t.Fatalf("the rebuilt member has the old one's ID %s", rejoined.ID)
	}
	if _, ok := f.Fence(rejoined.ID); ok {
		t.Fatal("the rebuilt member is fenced")
	}
}

// A fence that names no member, or carries digests of the wrong length, is refused whole.
func TestFenceRefusesAMalformedRecord(t *testing.T) {
	f := New()
	short := fenceOf("b")
	short.MajorityDigest = short.MajorityDigest[:3]
	for name, r := range map[string]*raftv1.ReplicaFence{"no id": fenceOf(""), "short digest": short} {
		err, _ := mustApply(t, f, FenceReplicaCommand, r).(error)
		if !errors.Is(err, ErrMalformedCommand) || !strings.Contains(err.Error(), "fence") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, ok := f.Fence("b"); ok {
		t.Fatal("a malformed fence was recorded")
	}
}
