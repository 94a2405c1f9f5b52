package fsm

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hashicorp/raft"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// randomLog builds n commands of every type from a seeded source, including ones the FSM
// refuses, so tests can replay the same history into several FSMs.
func randomLog(t *testing.T, seed uint64, n int) []*raft.Log {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	names := []string{"users", "Users", "orders", "invoices", "ORDERS"}
	var logs []*raft.Log
	add := func(typ CommandType, data []byte, err error) {
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: uint64(len(logs) + 1), Type: raft.LogCommand, Data: data})
	}
	for i := range n {
		name := names[rng.IntN(len(names))]
		reqID := ""
		if rng.IntN(3) == 0 {
			reqID = fmt.Sprintf("r%d", rng.IntN(n/2+1))
		}
		db := []string{"", "billing", "Shop"}[rng.IntN(3)]
		switch rng.IntN(9) {
		case 0, 1:
			b := &raftv1.IdentityBatch{ProposedAtMs: int64(i) * 1000}
			for range 1 + rng.IntN(4) {
				b.Increments = append(b.Increments, &raftv1.IdentityIncrement{Database: db, Name: names[rng.IntN(len(names))], Count: int64(rng.IntN(4)), RequestId: reqID})
			}
			data, err := Encode(IdentityBatchCommand, b)
			add(IdentityBatchCommand, data, err)
		case 2:
			data, err := Encode(SeedIdentityCommand, &raftv1.SeedIdentity{Name: name, Value: int64(rng.IntN(200)), Force: rng.IntN(4) == 0})
			add(SeedIdentityCommand, data, err)
		case 3:
			if rng.IntN(4) == 0 {
				data, err := Encode(SeedHiLoCommand, &raftv1.SeedHiLo{Database: db, Tag: name, Max: int64(rng.IntN(400) - 10)})
				add(SeedHiLoCommand, data, err)
			} else {
				typ := []CommandType{HiLoReserveCommand, HiLoGrantCommand}[rng.IntN(2)]
				data, err := Encode(typ, &raftv1.HiLoReserve{Database: db, Tag: name, Capacity: int64(32 << rng.IntN(4)), LastMax: int64(rng.IntN(100)),
					RequestId: reqID, ProposedAtMs: int64(i) * 1000, GrantId: fmt.Sprintf("g%d", i)})
				add(typ, data, err)
			}
		case 4:
			typ := []CommandType{HiLoReturnCommand, HiLoReturnGrantCommand}[rng.IntN(2)]
			grant := []string{fmt.Sprintf("g%d", rng.IntN(i+1)), fmt.Sprintf("r%d", rng.IntN(n/2+1))}[rng.IntN(2)]
			data, err := Encode(typ, &raftv1.HiLoReturn{Tag: name, End: int64(rng.IntN(300)), Last: int64(rng.IntN(300)), GrantId: grant})
			add(typ, data, err)
		case 5:
			if rng.IntN(4) == 0 {
				data, err := Encode(RemoveNodeCommand, &raftv1.RemoveNode{Tag: string(rune('A' + rng.IntN(4)))})
				add(RemoveNodeCommand, data, err)
			} else {
				id := fmt.Sprintf("n%d", rng.IntN(8))
				data, err := Encode(RegisterNodeCommand, &raftv1.RegisterNode{Id: id, RaftAddress: "r-" + id, GrpcAddress: "g-" + id})
				add(RegisterNodeCommand, data, err)
			}
		case 6:
			f := &raftv1.RaiseFloor{
				Identities:  []*raftv1.IdentityRecord{{Name: name, Value: int64(rng.IntN(300))}},
				Hilo:        []*raftv1.HiLoRecord{{Tag: names[rng.IntN(len(names))], Max: int64(rng.IntN(300))}},
				RetiredTags: []string{string(rune('A' + rng.IntN(8)))},
			}
			data, err := Encode(RaiseFloorCommand, f)
			add(RaiseFloorCommand, data, err)
		case 7:
			secret := make([]byte, 8+rng.IntN(32)) // some too short
			for i := range secret {
				secret[i] = byte(rng.IntN(256))
			}
			data, err := Encode(SetClusterSecretCommand, &raftv1.SetClusterSecret{Secret: secret})
			add(SetClusterSecretCommand, data, err)
		case 8:
			if rng.IntN(3) == 0 {
				data, err := Encode(DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: db, Force: rng.IntN(2) == 0})
				add(DeleteDatabaseCommand, data, err)
			} else {
				data, err := Encode(CreateDatabaseCommand, &raftv1.CreateDatabase{Name: db})
				add(CreateDatabaseCommand, data, err)
			}
		}
	}
	return logs
}

func TestSnapshotRestoreIsExact(t *testing.T) {
	logs := randomLog(t, 1, 2000)
	orig := New()
	orig.ApplyBatch(logs[:1500])
	data := snapshotBytes(t, orig)
	restored := mustRestore(t, data)
	if again := snapshotBytes(t, restored); !bytes.Equal(again, data) {
		t.Fatal("snapshot of the restored FSM differs from the snapshot it was restored from")
	}
	// The restored FSM must behave exactly like the original from here on.
	for _, l := range logs[1500:] {
		a, b := orig.Apply(l), restored.Apply(l)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("entry %d: original answered %#v, restored answered %#v", l.Index, a, b)
		}
	}
	if !bytes.Equal(snapshotBytes(t, orig), snapshotBytes(t, restored)) {
		t.Fatal("states diverged after the same entries")
	}
	if len(orig.Nodes()) == 0 || len(orig.st.databases[DefaultDatabase].identities) == 0 || len(orig.st.databases[DefaultDatabase].hilo) == 0 || len(orig.st.requests.live()) == 0 || orig.ClusterSecret() == nil || len(orig.st.databases) < 2 {
		t.Fatal("the random log did not exercise every kind of record")
	}
}

func TestApplyIsDeterministic(t *testing.T) {
	logs := randomLog(t, 7, 3000)
	one, batched := New(), New()
	var answers []any
	for _, l := range logs {
		answers = append(answers, one.Apply(l))
	}
	var batchedAnswers []any
	for i := 0; i < len(logs); i += 64 {
		batchedAnswers = append(batchedAnswers, batched.ApplyBatch(logs[i:min(i+64, len(logs))])...)
	}
	if !reflect.DeepEqual(answers, batchedAnswers) {
		t.Fatal("Apply and ApplyBatch answered the same log differently")
	}
	if !bytes.Equal(snapshotBytes(t, one), snapshotBytes(t, batched)) {
		t.Fatal("Apply and ApplyBatch reached different states")
	}
}

func TestRestoreRejectsCorruptSnapshots(t *testing.T) {
	f := New()
	mustIdentity(t, f, "users", 5, "")
	good := snapshotBytes(t, f)
	cases := map[string][]byte{
		"bad header":          append([]byte("not-a-snapshot-at-all!!\n"), good[len(snapshotMagic):]...),
		"truncated record":    good[:len(snapshotMagic)+4],
		"unknown record type": append(append([]byte{}, good...), 99, 0),
		"huge length":         append(append([]byte{}, good...), byte(identityRecord), 0xff, 0xff, 0xff, 0xff, 0x7f),
	}
	for name, data := range cases {
		g := New()
		mustIdentity(t, g, "keep", 1, "")
		if err := g.Restore(io.NopCloser(bytes.NewReader(data))); err == nil {
			t.Errorf("%s: restore accepted it", name)
		}
		if g.Identity("", "keep") != 1 {
			t.Errorf("%s: a failed restore changed the state", name)
		}
	}
}
