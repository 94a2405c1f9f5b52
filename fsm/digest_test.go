package fsm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// indexedApplier applies commands to an FSM at increasing log indexes, as raft does.
type indexedApplier struct {
	t     testing.TB
	f     *FSM
	index uint64
}

func (a *indexedApplier) apply(typ CommandType, m proto.Message) any {
	a.t.Helper()
	data, err := Encode(typ, m)
	if err != nil {
		a.t.Fatal(err)
	}
	a.index++
	out := a.f.Apply(&raft.Log{Index: a.index, Type: raft.LogCommand, Data: data})
	if err, ok := out.(error); ok {
		a.t.Fatalf("command %d at index %d: %v", typ, a.index, err)
	}
	return out
}

// digestCommand is one command of the state digestState builds.
type digestCommand struct {
	typ CommandType
	msg proto.Message
}

// digestState lists commands that fill every part of the state the digest covers, each
// independent of the others' order: databases, counters, tags, claims, keys, a node, the
// cluster secret and an opaque setting.
func digestState() []digestCommand {
	var cmds []digestCommand
	for _, db := range []string{"billing", "crm", "ops"} {
		cmds = append(cmds, digestCommand{CreateDatabaseCommand, &raftv1.CreateDatabase{Name: db}})
	}
	for k := range 40 {
		db := []string{DefaultDatabase, "billing", "crm"}[k%3]
		cmds = append(cmds,
			digestCommand{IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Database: db, Name: fmt.Sprintf("orders-%d|", k), Count: int64(k + 1)}}}},
			digestCommand{HiLoReserveCommand, &raftv1.HiLoReserve{Database: db, Tag: fmt.Sprintf("carts-%d", k), Capacity: 32}},
			digestCommand{ClaimCommand, &raftv1.Claim{Database: db, Ids: []string{fmt.Sprintf("users/%d", 1000+k)}, Owner: "o"}},
			digestCommand{CreateKeyCommand, &raftv1.CreateKey{Id: fmt.Sprintf("key-%d", k), Database: db, Role: RoleWriter, SecretSha256: bytes.Repeat([]byte{byte(100 + k)}, 32)}},
		)
	}
	cmds = append(cmds,
		digestCommand{SetClusterSecretCommand, &raftv1.SetClusterSecret{Secret: bytes.Repeat([]byte{9}, 32)}},
		digestCommand{MakeOpaqueCommand, &raftv1.MakeOpaque{Database: "ops", Collections: []string{"tickets"}, Key: bytes.Repeat([]byte{3}, OpaqueKeyLen)}},
	)
	return cmds
}

// replica applies cmds, in that order, to a new FSM after registering node A.
func replica(t testing.TB, cmds []digestCommand) *FSM {
	t.Helper()
	a := &indexedApplier{t: t, f: New()}
	a.apply(RegisterNodeCommand, &raftv1.RegisterNode{Tag: "A", Id: "node-a", RaftAddress: "a:7000", GrpcAddress: "a:8000", Incarnation: "i1", Separator: "|"})
	for _, c := range cmds {
		a.apply(c.typ, c.msg)
	}
	return a.f
}

func mustDigest(t testing.TB, f *FSM) (uint64, []byte) {
	t.Helper()
	index, digest, err := f.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if len(digest) != DigestLen {
		t.Fatalf("a digest of %d bytes, want %d", len(digest), DigestLen)
	}
	return index, digest
}

// The same commands in another order put every key into the maps in another order; the state,
// so the digest, is the same.
func TestDigestIsTheSameForTheSameStateWhateverTheInsertionOrder(t *testing.T) {
	cmds := digestState()
	reversed := slices.Clone(cmds)
	slices.Reverse(reversed[3:]) // the databases first: the commands after them use them
	i1, d1 := mustDigest(t, replica(t, cmds))
	i2, d2 := mustDigest(t, replica(t, reversed))
	if i1 != i2 || !bytes.Equal(d1, d2) {
		t.Fatalf("the same state in another insertion order: (%d, %x) and (%d, %x)", i1, d1, i2, d2)
	}
	if _, empty := mustDigest(t, New()); bytes.Equal(d1, empty) {
		t.Fatal("a full state has the empty state's digest")
	}
}

// flipCounter changes one identity counter of f behind the log's back: a bit flip in memory.
func flipCounter(f *FSM, database, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.st.databases[database]
	d.identities[f.st.key(name)] ^= 1
}

func TestDigestSeesOneFlippedCounter(t *testing.T) {
	cmds := digestState()
	good, bad := replica(t, cmds), replica(t, cmds)
	flipCounter(bad, "billing", "orders-1|")
	i1, d1 := mustDigest(t, good)
	i2, d2 := mustDigest(t, bad)
	if i1 != i2 {
		t.Fatalf("replicas of one log at indexes %d and %d", i1, i2)
	}
	if bytes.Equal(d1, d2) {
		t.Fatalf("a replica with a flipped counter has the digest %x of a good one", d1)
	}
}

// The digest covers no key material: neither the cluster secret nor an opaque key are in what
// is hashed, only their SHA-256.
func TestDigestHashesSecretsNotTheirBytes(t *testing.T) {
	f := replica(t, digestState())
	f.mu.RLock()
	records := f.st.records(false)
	f.mu.RUnlock()
	for _, r := range records {
		if r.msg == nil {
			continue
		}
		data, err := proto.Marshal(digestForm(r.msg))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, bytes.Repeat([]byte{9}, 32)) || bytes.Contains(data, bytes.Repeat([]byte{3}, OpaqueKeyLen)) {
			t.Fatalf("record %d's digest form holds a secret: %v", r.typ, digestForm(r.msg))
		}
	}
}

// memSink is a raft.SnapshotSink in memory.
type memSink struct{ bytes.Buffer }

func (*memSink) ID() string    { return "mem" }
func (*memSink) Cancel() error { return nil }
func (*memSink) Close() error  { return nil }

// persisted is f's snapshot as raft writes it: through Persist, sealed with its digest.
func persisted(t testing.TB, f *FSM) []byte {
	t.Helper()
	s, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := s.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	return sink.Bytes()
}

func TestARestoredSnapshotHasItsSourcesDigest(t *testing.T) {
	src := replica(t, digestState())
	wantIndex, want := mustDigest(t, src)
	restored := mustRestore(t, persisted(t, src))
	if index, got := mustDigest(t, restored); index != wantIndex || !bytes.Equal(got, want) {
		t.Fatalf("restored: (%d, %x); the source: (%d, %x)", index, got, wantIndex, want)
	}
	if wantIndex == 0 {
		t.Fatal("the source applied nothing")
	}
}

// A snapshot whose framing is good but one counter was changed after it was sealed is refused,
// naming both digests and the index.
func TestARestoreRefusesASnapshotWhoseStateIsNotItsDigest(t *testing.T) {
	src := replica(t, digestState())
	s, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap := s.(*snapshot)
	if err := snap.seal(); err != nil {
		t.Fatal(err)
	}
	var sealedDigest []byte
	changed := false
	for _, r := range snap.records {
		if c, ok := r.msg.(*raftv1.ClockRecord); ok {
			sealedDigest = c.GetStateDigest()
		}
		if ids, ok := r.stream.(*identityRecords); ok && !changed {
			ids.entries[0].value++
			changed = true
		}
	}
	if !changed || sealedDigest == nil {
		t.Fatalf("no counter to change (%v) or no digest sealed (%x)", changed, sealedDigest)
	}
	var buf bytes.Buffer
	if err := snap.write(&buf); err != nil {
		t.Fatal(err)
	}
	err = New().Restore(io.NopCloser(&buf))
	if !errors.Is(err, ErrSnapshotDigestMismatch) {
		t.Fatalf("restoring a snapshot with a changed counter: %v, want ErrSnapshotDigestMismatch", err)
	}
	index, _ := mustDigest(t, src)
	for _, want := range []string{fmt.Sprintf("%x", sealedDigest), fmt.Sprintf("index %d", index), "hashes to "} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the refusal %q does not name %q", err, want)
		}
	}
	// The same change made in a persisted snapshot's bytes, re-framed.
	reframed := withOneCounterChanged(t, persisted(t, src))
	if err := New().Restore(io.NopCloser(bytes.NewReader(reframed))); !errors.Is(err, ErrSnapshotDigestMismatch) {
		t.Fatalf("restoring a persisted snapshot with a changed counter: %v, want ErrSnapshotDigestMismatch", err)
	}
}

// An older build's snapshot carries no digest: it restores as before, unchecked, and says so.
func TestASnapshotWithoutADigestRestoresUncheckedAndSaysSo(t *testing.T) {
	old, err := os.ReadFile("testdata/pre-databases.snapshot")
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	f := New()
	f.SetLogger(slog.New(slog.NewTextHandler(&logged, nil)))
	if err := f.Restore(io.NopCloser(bytes.NewReader(old))); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), "carries no state digest") {
		t.Fatalf("restoring a snapshot without a digest logged %q", logged.String())
	}
	if f.Identity("", "orders") != 41 {
		t.Fatalf("orders = %d after the restore, want 41", f.Identity("", "orders"))
	}
	// A snapshot it writes now carries the digest of the same state.
	logged.Reset()
	again := New()
	again.SetLogger(slog.New(slog.NewTextHandler(&logged, nil)))
	if err := again.Restore(io.NopCloser(bytes.NewReader(persisted(t, f)))); err != nil {
		t.Fatal(err)
	}
	if logged.Len() > 0 {
		t.Fatalf("restoring a sealed snapshot logged %q", logged.String())
	}
}

// withOneCounterChanged is a snapshot's bytes with the first identity counter one higher,
// framed as a good snapshot is.
func withOneCounterChanged(t *testing.T, data []byte) []byte {
	t.Helper()
	out := []byte(snapshotMagic)
	rest, changed := data[len(snapshotMagic):], false
	for len(rest) > 0 {
		typ := recordType(rest[0])
		size, n := binary.Uvarint(rest[1:])
		body := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		if typ == identityRecord && !changed {
			var r raftv1.IdentityRecord
			if err := proto.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			r.Value++
			var err error
			if body, err = proto.Marshal(&r); err != nil {
				t.Fatal(err)
			}
			changed = true
		}
		out = append(out, byte(typ))
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	if !changed {
		t.Fatal("the snapshot holds no identity counter")
	}
	return out
}

// A backup carries the digest of what it holds, and ReadBackup refuses one that does not
// match it.
func TestReadBackupRefusesABackupWhoseStateIsNotItsDigest(t *testing.T) {
	var buf bytes.Buffer
	if err := replica(t, digestState()).WriteBackup(&buf, IssueRates{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBackup(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBackup(bytes.NewReader(withOneCounterChanged(t, buf.Bytes()))); !errors.Is(err, ErrSnapshotDigestMismatch) {
		t.Fatalf("reading a backup with a changed counter: %v, want ErrSnapshotDigestMismatch", err)
	}
}

// Digest taken while entries are applied answers pairs that belong together: each digest is
// the one a replica has at the index it comes with.
func TestDigestWhileApplyingIsNeverTorn(t *testing.T) {
	const entries = 200
	logs := make([]*raft.Log, entries)
	for i := range logs {
		data, err := Encode(IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: fmt.Sprintf("n%d", i%7), Count: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		logs[i] = &raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: data}
	}
	live := New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, l := range logs {
			live.Apply(l)
		}
	}()
	seen := map[uint64][]byte{}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		index, digest := mustDigest(t, live)
		seen[index] = digest
	}
	replay := New()
	for i := 0; i <= entries; i++ {
		if i > 0 {
			replay.Apply(logs[i-1])
		}
		if want, ok := seen[uint64(i)]; ok {
			if _, got := mustDigest(t, replay); !bytes.Equal(got, want) {
				t.Fatalf("Digest answered %x at index %d; a replica there has %x", want, i, got)
			}
		}
	}
	if len(seen) < 2 {
		t.Logf("only %d indexes sampled", len(seen))
	}
}
