package fsm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"runtime/metrics"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/opaque"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Bounds on one apply in FuzzFSM: far above what any command needs on a loaded machine, far
// below what a loop over a span a client chose costs.
const (
	fuzzApplyTime   = time.Second
	fuzzApplyAllocs = 64 << 20 // bytes allocated by one apply
	fuzzMaxCommands = 64
)

// FuzzFSM decodes the input into a sequence of well-typed commands, hostile numbers near the
// ends of int64 included, and applies it to two replicas: one entry at a time, and as one
// ApplyBatch. Each apply must end within fuzzApplyTime and allocate at most fuzzApplyAllocs;
// the replicas must answer alike, write byte-identical snapshots and have the same state
// digest, a restore of the snapshot must write the same bytes again, a restore of the
// snapshot sealed with its digest must pass its check and have the same digest at the same
// index, and the restored replica must answer the commands, applied once more, as the
// original does, and end in the same state. No answer may break the rule that keeps plain
// numeric IDs out of a database whose numeric IDs are opaque (opaqueNumericRule).
func FuzzFSM(f *testing.F) {
	f.Add([]byte{})
	// The claim that wedged the FSM near the largest int64, as decodeCommands reads it: claim p/5
	// (kind, 1 ID, name p, numeric, fuzzNumbers[2], owner p, no request id, default database), seed p
	// to 2^63-2, p| ×1.
	f.Add([]byte{cmdClaim, 0, 0, 0, 2, 0, 0, 0, cmdSeed, 0, 3, 0, 0, cmdIdentity, 0, 0, 0, 0, 0})
	// The variant: seed users to 2^63-4, then users| ×3 and once more.
	f.Add([]byte{cmdSeed, 6, 5, 0, 0, cmdIdentity, 0, 6, 10, 0, 0, cmdIdentity, 0, 6, 0, 0, 0})
	// Look-alikes: claims of p/1 and P/1 under the old fold, then the move (refused), then ſ| .
	f.Add([]byte{cmdClaim, 0, 0, 0, 0, 0, 0, 0, cmdClaim, 0, 1, 0, 0, 1, 0, 0, cmdSetFold, 1, cmdIdentity, 0, 2, 1, 0, 0})
	f.Add([]byte{cmdSetFold, 1, cmdClaim, 0, 3, 0, 0, 0, 0, 0, cmdIdentity, 0, 0, 2, 0, 0, cmdSetFold, 0})
	f.Add([]byte{cmdCreateDB, 1, 2, 2, 1, cmdCreateKey, 0, 1, cmdDeleteDB, 1, 1, cmdCreateDB, 2, 0, 0, 0})
	f.Add([]byte{cmdHiLo, 0, 2, 3, 1, 0, cmdHiLoReturn, 0, 1, 2, 0, cmdSeedHiLo, 0, 1, 0, cmdRaiseFloor, 1, 2, 0, 3, 4, 0, 0, 0, 2, 0, 0})
	f.Add([]byte{cmdRaw, 16, 2, 0xff, 0xff, cmdRaw, 99, 0, cmdIdentity, 0, 0, 0, 0, 0})
	// Worker leases in a 1-bit layout: two acquires, a third refused, a renewal of worker 0
	// once it lapsed, a release of worker 1 after its lapse, and an acquire that takes it again.
	f.Add([]byte{cmdAcquireWorker, 0, 0, 0, 4, 0, 0, cmdAcquireWorker, 0, 1, 0, 4, 0, 0, cmdAcquireWorker, 0, 2, 0, 4, 0, 0,
		cmdRenewWorker, 0, 0, 1, 1, 0, cmdReleaseWorker, 0, 1, 1, 0, cmdAcquireWorker, 0, 3, 0, 4, 0, 1})
	// db1 created, deleted without force, created again, and an acquire there refused for a
	// time past int64: applied again, the delete meets a db1 whose first acquire fixed nothing
	// (a worker set a snapshot does not write would refuse it on the original only).
	f.Add([]byte{cmdCreateDB, 1, 6, 6, 6, cmdDeleteDB, 1, 0, cmdCreateDB, 1, 6, 6, 6, cmdAcquireWorker, 1, 0, 0, 4, 3, 4, 0})
	// Opaque collections: p and users in db1; a worker leased there, then numeric refused; a
	// restore of db1 with the other key, refused; db1 deleted; a short key, refused; users
	// seeded past the plain limit, then refused; p and numeric in the default database.
	f.Add([]byte{cmdCreateDB, 1, 6, 6, 6, cmdMakeOpaque, 2, 0, 0, 6, 0, 0, 0, 1, 0, 0, cmdAcquireWorker, 1, 0, 0, 4, 0, 0,
		cmdMakeOpaque, 0, 1, 0, 1, 1, 0, cmdMakeOpaque, 1, 1, 0, 1, 0, 1, 0, 2, cmdDeleteDB, 1, 1,
		cmdMakeOpaque, 1, 0, 7, 1, 0, 2, 0, 0, 0, cmdSeed, 6, 3, 0, 0, cmdMakeOpaque, 1, 6, 0, 0, 0, 0, 0, 0,
		cmdMakeOpaque, 1, 0, 0, 0, 0, 0, 1, 0})
	// p opaque in the default database, the form of its value 2 claimed, then p| x3: 1, 3, 4.
	f.Add([]byte{cmdMakeOpaque, 1, 0, 0, 0, 0, 0, 0, 0, cmdClaim, 0, 0, 6, 2, 0, 0, 0, cmdIdentity, 0, 0, 10, 0, 0})
	// HiLo pools and grants: node A registered, a pool of 20 of p reserved for it, p's range
	// 21..32 granted as g1 and given back whole, A's mark of its pool published with a seal,
	// and a fence of A.
	f.Add([]byte{cmdRegisterNode, 0, 1, 1, byte(CurrentVersion), byte(CurrentVersion), cmdHiLoPoolReserve, 0, 20, 0, 0,
		cmdHiLoGrant, 0, 12, 6, 0, 1, 0, cmdHiLoReturnGrant, 0, 32, 20, 1, 0, 0,
		cmdLocalReservations, 0, 20, 0, 0, 20, 0, 1, cmdFenceReplica, 0, 0, 0, 5})
	f.Add(fuzzSeedNodeLeases)
	f.Add(fuzzSeedRestoredNodeLease)
	f.Fuzz(func(t *testing.T, data []byte) {
		cmds := decodeCommands(data)
		one, batched := New(), New()
		answers := make([]string, len(cmds))
		logs := make([]*raft.Log, len(cmds))
		for i, c := range cmds {
			logs[i] = &raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: c}
			rule := opaqueNumericRule(one, logs[i])
			a := boundedApply(t, one, logs[i])
			if err := rule(a); err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
			answers[i] = describeAnswer(a)
		}
		for i, a := range batched.ApplyBatch(logs) {
			if got := describeAnswer(a); got != answers[i] {
				t.Fatalf("entry %d: Apply answered %s, ApplyBatch %s", i, answers[i], got)
			}
		}
		if one.Halted() {
			return // a halted FSM refuses to snapshot, by design
		}
		snap := snapshotBytes(t, one)
		if other := snapshotBytes(t, batched); !bytes.Equal(snap, other) {
			t.Fatalf("replicas differ after %d commands", len(cmds))
		}
		restored := mustRestore(t, snap)
		if again := snapshotBytes(t, restored); !bytes.Equal(snap, again) {
			t.Fatalf("a restored snapshot writes other bytes")
		}
		// The replicas' digests agree, and a snapshot sealed with one restores to the same.
		index, digest := mustDigest(t, one)
		if i, d := mustDigest(t, batched); i != index || !bytes.Equal(d, digest) {
			t.Fatalf("replicas' digests differ: (%d, %x) and (%d, %x)", index, digest, i, d)
		}
		if i, d := mustDigest(t, mustRestore(t, persisted(t, one))); i != index || !bytes.Equal(d, digest) {
			t.Fatalf("a restored sealed snapshot's digest is (%d, %x), its source's (%d, %x)", i, d, index, digest)
		}
		// What a snapshot leaves out must not change an answer or the state: the restored
		// replica answers the commands again as the original does, and ends in the same state.
		for i, l := range logs {
			if a, b := describeAnswer(one.Apply(l)), describeAnswer(restored.Apply(l)); a != b {
				t.Fatalf("entry %d again: the original answered %s, the restored replica %s", i, a, b)
			}
		}
		if !one.Halted() && !bytes.Equal(snapshotBytes(t, one), snapshotBytes(t, restored)) {
			t.Fatalf("applied again, the original and the restored replica differ")
		}
	})
}

// boundedApply applies l to f and fails the test if it takes longer than fuzzApplyTime or
// allocates more than fuzzApplyAllocs. A wedged apply is left running: the test has failed.
func boundedApply(t *testing.T, f *FSM, l *raft.Log) any {
	t.Helper()
	before := allocatedBytes()
	done := make(chan any, 1)
	go func() { done <- f.Apply(l) }()
	select {
	case a := <-done:
		if grew := allocatedBytes() - before; grew > fuzzApplyAllocs {
			t.Fatalf("entry %d (type %d) allocated %d bytes", l.Index, l.Data[0], grew)
		}
		return a
	case <-time.After(fuzzApplyTime):
		t.Fatalf("entry %d (type %d) still applying after %v", l.Index, l.Data[0], fuzzApplyTime)
		return nil
	}
}

func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// describeAnswer is an answer as text, errors by their message, so two replicas' answers
// compare.
func describeAnswer(a any) string {
	if err, ok := a.(error); ok {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%+v", a)
}

// The fuzz input's command bytes: the first byte of each command, modulo cmdKinds.
const (
	cmdIdentity = iota
	cmdSeed
	cmdClaim
	cmdRelease
	cmdCreateDB
	cmdDeleteDB
	cmdCreateKey
	cmdDeleteKey
	cmdSetFold
	cmdHiLo
	cmdHiLoReturn
	cmdSeedHiLo
	cmdRaiseFloor
	cmdRaw
	cmdAcquireWorker
	cmdRenewWorker
	cmdReleaseWorker
	cmdRestoreSeries
	cmdReleaseOwner
	cmdNodeVersion
	cmdSetClusterVersion
	cmdMakeOpaque
	cmdRegisterNode
	cmdRemoveNode
	cmdRaiseWorker
	cmdHiLoGrant
	cmdHiLoReturnGrant
	cmdHiLoPoolReserve
	cmdLocalReservations
	cmdFenceReplica
	cmdKinds
)

// Hostile values the decoder picks from: the ends of int64 and their neighbours, the largest
// count, and small numbers that meet each other.
var fuzzNumbers = []int64{1, 2, 5, math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64 - 3, 0, -1, math.MinInt64, 100_000, 3, math.MaxInt64 - 2}

// Names that fold alike under one fold or the other, or look alike and never fold together.
var fuzzNames = []string{"p", "P", "ſ", "ｐ", "İstanbul", "istanbul", "users", "ѕ"}

var fuzzDatabases = []string{"", "db1", "DB1", "default"}

// fuzzReader hands out the input's bytes, and zeros once they run out.
type fuzzReader struct{ data []byte }

func (r *fuzzReader) byte() byte {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b
}

func (r *fuzzReader) pick(n int) int { return int(r.byte()) % n }

// number is a hostile number, or, for a selector past the table, eight raw bytes.
func (r *fuzzReader) number() int64 {
	i := int(r.byte())
	if i < len(fuzzNumbers) {
		return fuzzNumbers[i]
	}
	if i < 128 {
		return int64(i)
	}
	var b [8]byte
	for j := range b {
		b[j] = r.byte()
	}
	return int64(binary.LittleEndian.Uint64(b[:]))
}

func (r *fuzzReader) name() string     { return fuzzNames[r.pick(len(fuzzNames))] }
func (r *fuzzReader) database() string { return fuzzDatabases[r.pick(len(fuzzDatabases))] }

// fuzzTags are node tags: two that register, one left for the FSM to assign, and the
// reserved one.
var fuzzTags = []string{"A", "B", "", "RAFT"}

// fuzzHolders are worker holders: the fuzz names (at the same selectors as in fuzzNames, so a
// holder byte below 8 means what it meant before nodes' minters were here), the minters of
// the two tags that register, and node holders no node can be.
var fuzzHolders = append(slices.Clone(fuzzNames),
	NodeHolderPrefix+"A", NodeHolderPrefix+"B", NodeHolderPrefix, NodeHolderPrefix+"RAFT")

func (r *fuzzReader) tag() string    { return fuzzTags[r.pick(len(fuzzTags))] }
func (r *fuzzReader) holder() string { return fuzzHolders[r.pick(len(fuzzHolders))] }

// fuzzMemberID is the Raft ID a fuzz registration of tag gives its node, so the commands
// that name a member (pools, their marks, fences) meet registered nodes and unknown ones.
func fuzzMemberID(tag string) string { return "m" + tag }

func (r *fuzzReader) memberID() string { return fuzzMemberID(r.tag()) }

// grantID is the identity of a HiLo grant: a few that meet each other, or none.
func (r *fuzzReader) grantID() string {
	if b := r.byte(); b%4 != 0 {
		return "g" + strconv.Itoa(int(b%3))
	}
	return ""
}

// claimID is a claim in the identity format of a fuzz name, a plain semantic ID, or the form
// of a small value of p or users under a key MakeOpaque may give them.
func (r *fuzzReader) claimID() string {
	name := r.name()
	switch b := r.byte(); {
	case b%4 == 3:
		return name + "/x"
	case b%8 == 6:
		return name + "/" + fuzzForms[r.pick(len(fuzzForms))]
	}
	return name + "/" + strconv.FormatInt(r.number(), 10)
}

// fuzzForms are the forms of 1, 2 and 5 in p and users under the fuzz's first key, and a
// form-shaped text that is no form of theirs.
var fuzzForms = func() []string {
	out := []string{"0123456789abc"}
	for _, collection := range []string{"p", "users"} {
		c, err := opaque.NewIdentityCodec(bytes.Repeat([]byte{1}, OpaqueKeyLen), collection)
		if err != nil {
			panic(err)
		}
		for _, v := range []int64{1, 2, 5} {
			form, err := c.Encode(v)
			if err != nil {
				panic(err)
			}
			out = append(out, form)
		}
	}
	return out
}()

func (r *fuzzReader) ids() []string {
	ids := make([]string, 1+r.pick(3))
	for i := range ids {
		ids[i] = r.claimID()
	}
	return ids
}

// Worker lease numbers: each bound and its neighbours, or a hostile number.
var (
	fuzzLeases = []int64{MinWorkerLeaseMs, MaxWorkerLeaseMs, MinWorkerLeaseMs - 1, MaxWorkerLeaseMs + 1, 2500}
	fuzzBits   = []int32{1, 2, MaxWorkerBits, 0, MaxWorkerBits + 1}
)

func (r *fuzzReader) leaseMs() int64 {
	if i := r.pick(len(fuzzLeases) + 1); i < len(fuzzLeases) {
		return fuzzLeases[i]
	}
	return r.number()
}

// worker is a small worker ID, or a hostile one.
func (r *fuzzReader) worker() uint32 {
	if b := r.byte(); b < 200 {
		return uint32(b % 5)
	}
	return uint32(r.number())
}

// proposedAt is the fuzz clock, or, now and then, a leader's clock behind or far ahead of it.
func (r *fuzzReader) proposedAt(clock int64) int64 {
	if r.byte()%4 == 3 {
		return r.number()
	}
	return clock
}

func (r *fuzzReader) requestID() string {
	if b := r.byte(); b%3 != 0 {
		return "r" + strconv.Itoa(int(b%5))
	}
	return ""
}

// decodeCommands turns fuzz input into at most fuzzMaxCommands encoded log entries.
func decodeCommands(data []byte) [][]byte {
	r := &fuzzReader{data: data}
	var out [][]byte
	clock := int64(0)
	for len(r.data) > 0 && len(out) < fuzzMaxCommands {
		kind := r.pick(cmdKinds)
		clock += 1000
		var (
			typ CommandType
			msg proto.Message
		)
		switch kind {
		case cmdIdentity:
			b := &raftv1.IdentityBatch{ProposedAtMs: clock}
			for range 1 + r.pick(3) {
				b.Increments = append(b.Increments, &raftv1.IdentityIncrement{Name: r.name(), Count: r.number(), RequestId: r.requestID(), Database: r.database()})
			}
			typ, msg = IdentityBatchCommand, b
		case cmdSeed:
			typ, msg = SeedIdentityCommand, &raftv1.SeedIdentity{Name: r.name(), Value: r.number(), Force: r.byte()%2 == 1, Database: r.database()}
		case cmdClaim:
			typ, msg = ClaimCommand, &raftv1.Claim{Ids: r.ids(), Owner: r.name(), RequestId: r.requestID(), ProposedAtMs: clock, Database: r.database()}
		case cmdRelease:
			// One byte picks the owner, as it did before releases had request ids, and now also
			// whether this one has a request_id and its leader's clock, as from cluster version 8:
			// the inputs found before decode as they did.
			rel := &raftv1.Release{Ids: r.ids()}
			k := r.pick(4)
			rel.Owner, rel.Database = []string{"", "p"}[k%2], r.database()
			if k/2 == 1 {
				rel.RequestId, rel.ProposedAtMs = "r2", clock
			}
			typ, msg = ReleaseCommand, rel
		case cmdCreateDB:
			typ, msg = CreateDatabaseCommand, &raftv1.CreateDatabase{Name: r.database(), MaxIdentities: r.number(), MaxClaims: r.number(), MaxCallsPerSecond: float64(r.number())}
		case cmdDeleteDB:
			typ, msg = DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: r.database(), Force: r.byte()%2 == 1}
		case cmdCreateKey:
			typ, msg = CreateKeyCommand, &raftv1.CreateKey{Id: "k" + strconv.Itoa(r.pick(3)), Database: r.database(), Role: RoleWriter, SecretSha256: bytes.Repeat([]byte{1}, 32)}
		case cmdDeleteKey:
			typ, msg = DeleteKeyCommand, &raftv1.DeleteKey{Id: "k" + strconv.Itoa(r.pick(3))}
		case cmdSetFold:
			typ, msg = SetFoldCommand, &raftv1.Fold{Version: int32(r.pick(3))}
		case cmdHiLo:
			typ, msg = HiLoReserveCommand, &raftv1.HiLoReserve{Tag: r.name(), Capacity: r.number(), LastMax: r.number(), RequestId: r.requestID(), ProposedAtMs: clock, Database: r.database()}
		case cmdHiLoReturn:
			typ, msg = HiLoReturnCommand, &raftv1.HiLoReturn{Tag: r.name(), End: r.number(), Last: r.number(), Database: r.database()}
		case cmdSeedHiLo:
			typ, msg = SeedHiLoCommand, &raftv1.SeedHiLo{Tag: r.name(), Max: r.number(), Database: r.database()}
		case cmdRaiseFloor:
			typ, msg = RaiseFloorCommand, &raftv1.RaiseFloor{
				Identities: []*raftv1.IdentityRecord{{Name: r.name(), Value: r.number(), Database: r.database()}},
				Hilo:       []*raftv1.HiLoRecord{{Tag: r.name(), Max: r.number(), Database: r.database()}},
				Claims:     []*raftv1.ClaimRecord{{Id: r.claimID(), Owner: r.name(), Database: r.database()}},
			}
		case cmdAcquireWorker:
			typ, msg = AcquireWorkerCommand, &raftv1.AcquireWorker{Database: r.database(), Holder: r.holder(), WorkerBits: fuzzBits[r.pick(len(fuzzBits))],
				LeaseMs: r.leaseMs(), ProposedAtMs: r.proposedAt(clock), RequestId: r.requestID()}
		case cmdRenewWorker:
			typ, msg = RenewWorkerCommand, &raftv1.RenewWorker{Database: r.database(), Worker: r.worker(), Epoch: uint64(r.pick(4)),
				LeaseMs: r.leaseMs(), ProposedAtMs: r.proposedAt(clock)}
		case cmdReleaseWorker:
			typ, msg = ReleaseWorkerCommand, &raftv1.ReleaseWorker{Database: r.database(), Worker: r.worker(), Epoch: uint64(r.pick(4)),
				ProposedAtMs: r.proposedAt(clock)}
		case cmdRestoreSeries:
			// Without a journal (New has none) it is refused after its checks, changing nothing.
			def := &raftv1.SeriesDefinition{Database: DatabaseName(r.database()), Name: r.name(), Format: "INV-{n}",
				CreatedAtMs: r.number(), Entries: uint64(r.number())}
			e := &raftv1.SeriesEntry{Database: def.GetDatabase(), Series: def.GetName(), Seq: uint64(r.number()),
				Kind: raftv1.SeriesEntryKind(r.pick(3)), Number: r.number(), TimeMs: r.number(), RequestId: r.requestID()}
			typ, msg = RestoreSeriesCommand, &raftv1.RestoreSeries{Definition: def, Entries: []*raftv1.SeriesEntry{e}}
		case cmdReleaseOwner:
			typ, msg = ReleaseOwnerCommand, &raftv1.ReleaseOwner{Owner: r.name(), Database: r.database()}
		case cmdNodeVersion:
			typ, msg = NodeVersionCommand, &raftv1.NodeVersion{Tag: r.name(), Id: r.name(), Version: uint32(r.pick(4)), Build: r.name()}
		case cmdSetClusterVersion:
			typ, msg = SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: uint32(r.pick(4))}
		case cmdMakeOpaque:
			// Two keys (the second proposal's is ignored, a restore's refused), a short one, and
			// collections that fold alike or may not be opaque.
			cols := make([]string, r.pick(3))
			for i := range cols {
				if cols[i] = r.name(); r.byte()%8 == 7 {
					cols[i] = []string{"#numeric", "straße"}[r.pick(2)]
				}
			}
			key := bytes.Repeat([]byte{byte(1 + r.pick(2))}, []int{OpaqueKeyLen, OpaqueKeyLen, 16}[r.pick(3)])
			typ, msg = MakeOpaqueCommand, &raftv1.MakeOpaque{Database: r.database(), Collections: cols, Numeric: r.byte()%2 == 1,
				Key: key, Restore: r.byte()%3 == 2}
		case cmdRegisterNode:
			// Two incarnations and two addresses, so a second registration of a tag may be
			// the same node, another incarnation, or another node at a held address.
			tag := r.tag()
			typ, msg = RegisterNodeCommand, &raftv1.RegisterNode{Tag: tag, Id: fuzzMemberID(tag), Incarnation: []string{"", "i1", "i2"}[r.pick(3)],
				RaftAddress: []string{"", "a1", "a2"}[r.pick(3)], NodeVersion: uint32(r.pick(int(CurrentVersion) + 2)),
				FoundingVersion: uint32(r.pick(int(CurrentVersion) + 2))}
		case cmdRemoveNode:
			typ, msg = RemoveNodeCommand, &raftv1.RemoveNode{Tag: r.tag()}
		case cmdRaiseWorker:
			// A backup's worker, held by a client or a node's minter, of a database whose
			// numeric IDs were opaque in the backup's cluster or plain.
			rec := &raftv1.WorkerRecord{Database: r.database()}
			rec.Worker, rec.Epoch, rec.Holder = r.worker(), uint64(r.pick(4)), r.holder()
			rec.WorkerBits = fuzzBits[r.pick(len(fuzzBits))]
			rec.MinMs, rec.ExpiresAtMs, rec.HighWaterMs = r.number(), r.number(), r.number()
			raise := &raftv1.RaiseFloor{Workers: []*raftv1.WorkerRecord{rec}}
			if r.byte()%2 == 1 {
				raise.OpaqueNumericDatabases = []string{rec.GetDatabase()}
			}
			typ, msg = RaiseFloorCommand, raise
		case cmdHiLoGrant:
			typ, msg = HiLoGrantCommand, &raftv1.HiLoReserve{Tag: r.name(), Capacity: r.number(), LastMax: r.number(), RequestId: r.requestID(),
				GrantId: r.grantID(), ProposedAtMs: clock, Database: r.database()}
		case cmdHiLoReturnGrant:
			typ, msg = HiLoReturnGrantCommand, &raftv1.HiLoReturn{Tag: r.name(), End: r.number(), Last: r.number(), GrantId: r.grantID(),
				RequestId: r.requestID(), Database: r.database()}
		case cmdHiLoPoolReserve:
			typ, msg = HiLoPoolReserveCommand, &raftv1.HiLoPoolReserve{Tag: r.name(), Capacity: r.number(), MemberId: r.memberID(), Database: r.database()}
		case cmdLocalReservations:
			// A pool's mark of a tag in a database, and a seal or an unseal of one of two pools files.
			lr := &raftv1.LocalReservations{MemberId: r.memberID(), Etag: uint64(r.number()),
				Pools: []*raftv1.PoolMark{{Database: r.database(), Tag: r.name(), Granted: r.number()}}}
			switch seal := bytes.Repeat([]byte{byte(1 + r.pick(2))}, 32); r.pick(3) {
			case 1:
				lr.Seal = seal
			case 2:
				lr.Unseal = seal
			}
			typ, msg = LocalReservationsCommand, lr
		case cmdFenceReplica:
			digest := bytes.Repeat([]byte{byte(r.pick(2))}, DigestLen)
			typ, msg = FenceReplicaCommand, &raftv1.ReplicaFence{Id: r.memberID(), Tag: r.tag(), Index: uint64(r.number()),
				Digest: digest, MajorityDigest: bytes.Repeat([]byte{9}, DigestLen), AtMs: clock}
		case cmdRaw:
			// Any type byte, known or not, with a few payload bytes: malformed entries and the
			// halt on an unknown command.
			raw := []byte{r.byte()}
			for range r.pick(6) {
				raw = append(raw, r.byte())
			}
			out = append(out, raw)
			continue
		}
		entry, err := Encode(typ, msg)
		if err != nil {
			panic(err) // the decoder pairs each type with its message
		}
		out = append(out, entry)
	}
	return out
}
