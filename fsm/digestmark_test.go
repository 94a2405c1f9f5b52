package fsm

import (
	"bytes"
	"io"
	"slices"
	"testing"

	"github.com/hashicorp/raft"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// markedLog is digestState's commands with a digest mark after every 25th, framed as raft
// entries from index 1 (after node A's registration), and the indexes of the marks.
func markedLog(t *testing.T) (logs []*raft.Log, marks []uint64) {
	t.Helper()
	add := func(data []byte, err error) {
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: uint64(len(logs) + 1), Type: raft.LogCommand, Data: data})
	}
	add(Encode(RegisterNodeCommand, &raftv1.RegisterNode{Tag: "A", Id: "node-a", RaftAddress: "a:7000", GrpcAddress: "a:8000", Incarnation: "i1", Separator: "|"}))
	for i, c := range digestState() {
		add(Encode(c.typ, c.msg))
		if i%25 == 24 {
			add(Encode(DigestMarkCommand, &raftv1.DigestMark{ProposedAtMs: int64(i)}))
			marks = append(marks, uint64(len(logs)))
		}
	}
	return logs, marks
}

// Every replica holds the same digest at a mark, however it applies the log: one entry at a
// time or in batches of any size. And that digest is the state's as of the mark's index.
func TestDigestMarksAgreeAcrossReplicas(t *testing.T) {
	logs, marks := markedLog(t)
	if len(marks) < 3 || len(marks) > keptMarks {
		t.Fatalf("the log has %d marks; the test needs 3 to %d", len(marks), keptMarks)
	}
	one := New()
	for _, l := range logs {
		if err, ok := one.Apply(l).(error); ok {
			t.Fatalf("index %d: %v", l.Index, err)
		}
	}
	batched := New()
	for rest := logs; len(rest) > 0; {
		n := min(7, len(rest))
		batched.ApplyBatch(rest[:n])
		rest = rest[n:]
	}
	for _, index := range marks {
		a, okA := DigestAt(one, index)
		b, okB := DigestAt(batched, index)
		if !okA || !okB || a.Err != nil || b.Err != nil || len(a.Digest) != DigestLen {
			t.Fatalf("mark %d: %+v (%v) and %+v (%v)", index, a, okA, b, okB)
		}
		if !bytes.Equal(a.Digest, b.Digest) {
			t.Fatalf("mark %d: replicas disagree, %x and %x", index, a.Digest, b.Digest)
		}
		upTo := New()
		for _, l := range logs[:index] {
			upTo.Apply(l)
		}
		at, digest, err := upTo.Digest()
		if err != nil || at != index || !bytes.Equal(digest, a.Digest) {
			t.Fatalf("mark %d holds %x; the state at %d hashes to %x (%v)", index, a.Digest, at, digest, err)
		}
	}
	if got := heldMarks(one); !slices.Equal(got, marks) {
		t.Fatalf("marks held %v, want %v", got, marks)
	}
}

// A mark changes no state: the digest after it is the digest before it.
func TestDigestMarkChangesNoState(t *testing.T) {
	a := &indexedApplier{t: t, f: replica(t, digestState())}
	_, before, err := a.f.Digest()
	if err != nil {
		t.Fatal(err)
	}
	index := a.apply(DigestMarkCommand, &raftv1.DigestMark{})
	if index != a.index {
		t.Fatalf("the mark answered %v, want its index %d", index, a.index)
	}
	m, ok := DigestAt(a.f, a.index)
	if !ok || !bytes.Equal(m.Digest, before) {
		t.Fatalf("the mark holds %x (%v), the state before it hashed to %x", m.Digest, ok, before)
	}
}

// A replica whose state differs holds a differing digest at the same mark, and its parts say
// in what.
func TestDigestMarkTellsADivergedReplica(t *testing.T) {
	good := &indexedApplier{t: t, f: replica(t, digestState())}
	bad := &indexedApplier{t: t, f: replica(t, digestState())}
	ids := bad.f.st.databases[DefaultDatabase].identities
	for k := range ids {
		ids[k]++
		break
	}
	good.apply(DigestMarkCommand, &raftv1.DigestMark{})
	bad.apply(DigestMarkCommand, &raftv1.DigestMark{})
	g, _ := DigestAt(good.f, good.index)
	b, _ := DigestAt(bad.f, bad.index)
	if good.index != bad.index || bytes.Equal(g.Digest, b.Digest) {
		t.Fatalf("at %d and %d the digests are %x and %x, want them to differ", good.index, bad.index, g.Digest, b.Digest)
	}
	if got := g.Parts.Differing(b.Parts); !slices.Equal(got, []string{"identities"}) {
		t.Fatalf("the differing parts are %q (of %v and %v), want the identities alone", got, g.Parts, b.Parts)
	}
	if _, ok := g.Parts["hilo"]; !ok {
		t.Fatalf("the parts %v lack the state's HiLo tags", g.Parts)
	}
}

// A replica keeps only the latest keptMarks marks, and says so of an older one.
func TestDigestMarksAreBounded(t *testing.T) {
	a := &indexedApplier{t: t, f: New()}
	var want []uint64
	for range 3 * keptMarks {
		a.apply(DigestMarkCommand, &raftv1.DigestMark{})
		want = append(want, a.index)
	}
	want = want[len(want)-keptMarks:]
	if got := heldMarks(a.f); !slices.Equal(got, want) {
		t.Fatalf("marks held %v, want %v", got, want)
	}
	if _, ok := DigestAt(a.f, 1); ok {
		t.Fatal("the oldest mark is still held")
	}
	if m, ok := DigestAt(a.f, want[0]); !ok || len(m.Digest) != DigestLen {
		t.Fatalf("mark %d: %+v (%v)", want[0], m, ok)
	}
}

// A restored replica keeps its marks: they name indexes, not a state.
func TestDigestMarksOutliveARestore(t *testing.T) {
	a := &indexedApplier{t: t, f: replica(t, digestState())}
	a.apply(DigestMarkCommand, &raftv1.DigestMark{})
	snap := snapshotBytes(t, a.f)
	if err := a.f.Restore(io.NopCloser(bytes.NewReader(snap))); err != nil {
		t.Fatal(err)
	}
	if _, ok := DigestAt(a.f, a.index); !ok {
		t.Fatal("the mark was lost in the restore")
	}
	a.apply(DigestMarkCommand, &raftv1.DigestMark{})
	if got := heldMarks(a.f); len(got) != 2 {
		t.Fatalf("marks after the restore: %v, want 2", got)
	}
}

// heldMarks answers the indexes of the marks f holds, oldest first.
func heldMarks(f *FSM) []uint64 {
	f.marks.mu.Lock()
	defer f.marks.mu.Unlock()
	out := make([]uint64, len(f.marks.marks))
	for i, m := range f.marks.marks {
		out[i] = m.index
	}
	return out
}
