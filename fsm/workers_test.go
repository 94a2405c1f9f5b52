package fsm

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

const testLeaseMs = 10_000

func acquire(t *testing.T, f *FSM, bits int32, atMs int64) any {
	t.Helper()
	return mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Holder: "app-1", WorkerBits: bits, LeaseMs: testLeaseMs, ProposedAtMs: atMs})
}

func mustAcquire(t *testing.T, f *FSM, bits int32, atMs int64) WorkerLease {
	t.Helper()
	l, ok := acquire(t, f, bits, atMs).(WorkerLease)
	if !ok {
		t.Fatalf("acquire at %d answered %v", atMs, acquire(t, f, bits, atMs))
	}
	return l
}

func renew(t *testing.T, f *FSM, w uint32, epoch uint64, leaseMs, atMs int64) any {
	t.Helper()
	return mustApply(t, f, RenewWorkerCommand, &raftv1.RenewWorker{Worker: w, Epoch: epoch, LeaseMs: leaseMs, ProposedAtMs: atMs})
}

func mustRenew(t *testing.T, f *FSM, w uint32, epoch uint64, leaseMs, atMs int64) WorkerLease {
	t.Helper()
	a := renew(t, f, w, epoch, leaseMs, atMs)
	l, ok := a.(WorkerLease)
	if !ok {
		t.Fatalf("renew of worker %d epoch %d at %d answered %v", w, epoch, atMs, a)
	}
	return l
}

func release(t *testing.T, f *FSM, w uint32, epoch uint64, atMs int64) any {
	t.Helper()
	return mustApply(t, f, ReleaseWorkerCommand, &raftv1.ReleaseWorker{Worker: w, Epoch: epoch, ProposedAtMs: atMs})
}

func wantErr(t *testing.T, got any, want error, mentions string) {
	t.Helper()
	err, ok := got.(error)
	if !ok || !errors.Is(err, want) || !strings.Contains(err.Error(), mentions) {
		t.Fatalf("answered %v, want %v naming %q", got, want, mentions)
	}
}

func mustWorkers(t *testing.T, f *FSM, database string) []WorkerLease {
	t.Helper()
	ws, err := f.Workers(database)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestAcquireHandsOutDistinctWorkersUntilExhausted(t *testing.T) {
	f := New()
	for w := range uint32(4) {
		l := mustAcquire(t, f, 2, 100_000)
		want := WorkerLease{Database: DefaultDatabase, Worker: w, Epoch: 1, Holder: "app-1", MinMs: 99_999, MaxMs: 110_000, ExpiresAtMs: 110_000}
		if l != want {
			t.Fatalf("lease %d = %+v, want %+v", w, l, want)
		}
	}
	wantErr(t, acquire(t, f, 2, 105_000), ErrWorkersExhausted, "lapses at 110000")
	if ws := mustWorkers(t, f, ""); len(ws) != 4 || ws[3].Worker != 3 {
		t.Fatalf("workers %+v", ws)
	}
}

func TestLapsedWorkerGoesAboveItsHighWater(t *testing.T) {
	f := New()
	first := mustAcquire(t, f, 1, 100_000)  // worker 0 until 110,000
	second := mustAcquire(t, f, 1, 101_000) // worker 1 until 111,000
	mustRenew(t, f, first.Worker, 1, 20_000, 105_000)
	// At 111,000 worker 1 lapsed; worker 0 runs until 125,000.
	l := mustAcquire(t, f, 1, 111_000)
	if l.Worker != second.Worker || l.Epoch != 2 || l.MinMs != second.MaxMs || l.MaxMs != 121_000 {
		t.Fatalf("reused %+v, want worker %d epoch 2 above %d", l, second.Worker, second.MaxMs)
	}
	wantErr(t, acquire(t, f, 1, 112_000), ErrWorkersExhausted, "lapses at 121000")
	// Long after both lapsed, the one that lapsed first (worker 1, at 121,000) goes first, and
	// its holder mints from the log's now on.
	l = mustAcquire(t, f, 1, 500_000)
	if l.Worker != second.Worker || l.Epoch != 3 || l.MinMs != 499_999 || l.ExpiresAtMs != 510_000 {
		t.Fatalf("second reuse %+v", l)
	}
}

func TestRenewMovesTheHighWaterAndFencesOldEpochs(t *testing.T) {
	f := New()
	l := mustAcquire(t, f, 1, 100_000)
	r := mustRenew(t, f, l.Worker, l.Epoch, 30_000, 105_000)
	if r.MinMs != l.MinMs || r.ExpiresAtMs != 135_000 || r.MaxMs != 135_000 {
		t.Fatalf("renewed %+v", r)
	}
	// A shorter renewal does not take back what the longer one gave.
	if r2 := mustRenew(t, f, l.Worker, l.Epoch, 1_000, 106_000); r2 != r {
		t.Fatalf("short renewal shrank %+v to %+v", r, r2)
	}
	// Lapsed but nobody took it: its holder renews it.
	if r3 := mustRenew(t, f, l.Worker, l.Epoch, 1_000, 140_000); r3.ExpiresAtMs != 141_000 || r3.Epoch != 1 {
		t.Fatalf("renewal of a free lapsed lease %+v", r3)
	}
	// Worker 0 lapses at 141,000 exactly: a lapsed worker goes before a never-used one.
	next := mustAcquire(t, f, 1, 141_000)
	if next.Worker != l.Worker || next.Epoch != 2 || next.MinMs != 141_000 {
		t.Fatalf("reuse %+v", next)
	}
	wantErr(t, renew(t, f, l.Worker, 1, 10_000, 142_000), ErrWorkerLeaseLost, "another holder's")
	wantErr(t, renew(t, f, l.Worker, 3, 10_000, 142_000), ErrWorkerLeaseLost, "never had epoch 3")
	// The old holder's release is over already: nothing changes, no error.
	if a := release(t, f, l.Worker, 1, 142_000); a != nil {
		t.Fatalf("release of an old epoch answered %v", a)
	}
	if ws := mustWorkers(t, f, ""); ws[l.Worker] != next {
		t.Fatalf("the old epoch's release changed %+v to %+v", next, ws[l.Worker])
	}
	wantErr(t, release(t, f, l.Worker, 3, 142_000), ErrWorkerLeaseLost, "never had epoch 3")
}

func TestReleaseFreesTheWorkerAtOnce(t *testing.T) {
	f := New()
	a := mustAcquire(t, f, 1, 100_000)
	mustAcquire(t, f, 1, 100_000)
	for range 2 { // a retry changes nothing more
		if got := release(t, f, a.Worker, a.Epoch, 100_500); got != nil {
			t.Fatalf("release answered %v", got)
		}
	}
	l := mustAcquire(t, f, 1, 100_500)
	// The released holder may have minted up to its high-water: the next starts above it,
	// with a whole lease of time there.
	if l.Worker != a.Worker || l.Epoch != 2 || l.MinMs != a.MaxMs || l.MaxMs != a.MaxMs+testLeaseMs || l.ExpiresAtMs != l.MaxMs {
		t.Fatalf("after release %+v, released %+v", l, a)
	}
}

// A leader whose clock is behind the log's cannot shorten a lease or lower a high-water.
func TestAClockBehindShrinksNothing(t *testing.T) {
	f := New()
	l := mustAcquire(t, f, 1, 100_000)
	if r := mustRenew(t, f, l.Worker, l.Epoch, 1_000, 50_000); r != l {
		t.Fatalf("renewal from the past changed %+v to %+v", l, r)
	}
	behind := mustAcquire(t, f, 1, 0)
	if behind.MinMs != 99_999 || behind.ExpiresAtMs != 110_000 {
		t.Fatalf("acquire from the past %+v", behind)
	}
	if a := release(t, f, l.Worker, l.Epoch, 0); a != nil {
		t.Fatal(a)
	}
	ws := mustWorkers(t, f, "")
	if ws[l.Worker].MaxMs != l.MaxMs || ws[l.Worker].ExpiresAtMs != 100_000 {
		t.Fatalf("released at the log's now (100,000), high-water kept: %+v", ws[l.Worker])
	}
	// Both workers of the 1-bit layout are taken: the released one goes again, above its
	// high-water.
	again := mustAcquire(t, f, 1, 1)
	if again.Worker != l.Worker || again.MinMs != l.MaxMs {
		t.Fatalf("reuse %+v below the high-water %d", again, l.MaxMs)
	}
}

// A worker released early keeps a high-water up to a lease ahead of the clock, and its next
// holder mints only above it: a never-used worker goes first, then a worker whose high-water
// has passed goes before a never-used one, so the IDs stay on few workers.
func TestAcquirePrefersWorkersItsHolderCanMintWithAtOnce(t *testing.T) {
	f := New()
	a := mustAcquire(t, f, 2, 100_000) // worker 0 until 110,000
	if got := release(t, f, a.Worker, a.Epoch, 100_500); got != nil {
		t.Fatalf("release answered %v", got)
	}
	b := mustAcquire(t, f, 2, 100_600)
	if b.Worker == a.Worker || b.MinMs != 100_599 {
		t.Fatalf("after an early release %+v; want a never-used worker minting from the log's now (100,599), not worker %d above %d", b, a.Worker, a.MaxMs)
	}
	c := mustAcquire(t, f, 2, 110_000) // worker 0's high-water has passed
	if c.Worker != a.Worker || c.Epoch != 2 || c.MinMs != 110_000 {
		t.Fatalf("once worker %d's high-water passed: %+v; want it again, epoch 2, from 110,000", a.Worker, c)
	}
	if d := mustAcquire(t, f, 2, 110_001); d.Worker != 2 {
		t.Fatalf("with no worker free of its high-water: %+v, want the next never used (2)", d)
	}
}

func TestWorkerCallsRefuseHostileNumbers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cmd      *raftv1.AcquireWorker
		want     error
		mentions string
	}{
		{"lease 0", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: 0}, ErrInvalidWorkerLease, "lease_ms"},
		{"lease 999", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: 999}, ErrInvalidWorkerLease, "lease_ms"},
		{"lease over an hour", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: 3_600_001}, ErrInvalidWorkerLease, "lease_ms"},
		{"lease negative", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: math.MinInt64}, ErrInvalidWorkerLease, "lease_ms"},
		{"lease max", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: math.MaxInt64}, ErrInvalidWorkerLease, "lease_ms"},
		{"bits 0", &raftv1.AcquireWorker{WorkerBits: 0, LeaseMs: 1000}, ErrInvalidWorkerLease, "worker_bits"},
		{"bits 23", &raftv1.AcquireWorker{WorkerBits: 23, LeaseMs: 1000}, ErrInvalidWorkerLease, "worker_bits"},
		{"bits negative", &raftv1.AcquireWorker{WorkerBits: -1, LeaseMs: 1000}, ErrInvalidWorkerLease, "worker_bits"},
		{"holder", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: 1000, Holder: strings.Repeat("h", 129)}, ErrInvalidWorkerLease, "holder"},
		{"time at the end", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: 1000, ProposedAtMs: math.MaxInt64}, ErrCounterOverflow, "proposed_at_ms"},
		{"time near the end", &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: 3_600_000, ProposedAtMs: math.MaxInt64 - 3_599_999}, ErrCounterOverflow, "proposed_at_ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New()
			wantErr(t, mustApply(t, f, AcquireWorkerCommand, tc.cmd), tc.want, tc.mentions)
			if ws := f.st.databases[DefaultDatabase].workers; ws != nil {
				t.Fatalf("a refused acquire left %+v", ws)
			}
		})
	}
	t.Run("time at the last lease", func(t *testing.T) {
		f := New()
		l, ok := mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{WorkerBits: 4, LeaseMs: 1000, ProposedAtMs: math.MaxInt64 - 1000}).(WorkerLease)
		if !ok || l.MaxMs != math.MaxInt64 {
			t.Fatalf("acquire answered %+v", l)
		}
		wantErr(t, renew(t, f, l.Worker, l.Epoch, 1000, math.MaxInt64), ErrCounterOverflow, "lease_ms")
	})
	t.Run("layout", func(t *testing.T) {
		f := New()
		mustAcquire(t, f, 2, 1000)
		wantErr(t, acquire(t, f, 3, 1000), ErrWorkerBitsDiffer, "worker_bits")
		wantErr(t, renew(t, f, 4, 1, 1000, 1000), ErrInvalidWorkerLease, "worker 4")
		wantErr(t, release(t, f, math.MaxUint32, 1, 1000), ErrInvalidWorkerLease, "worker 4294967295")
		wantErr(t, renew(t, f, 3, 1, 1000, 1000), ErrWorkerLeaseLost, "never leased")
		wantErr(t, renew(t, f, 0, 0, 1000, 1000), ErrWorkerLeaseLost, "not 0")
		wantErr(t, renew(t, f, 0, 1, 999, 1000), ErrInvalidWorkerLease, "lease_ms")
	})
	t.Run("no layout yet", func(t *testing.T) {
		f := New()
		wantErr(t, renew(t, f, 1<<22, 1, 1000, 1000), ErrInvalidWorkerLease, "outside")
		wantErr(t, release(t, f, 0, 1, 1000), ErrWorkerLeaseLost, "never leased")
	})
}

func TestAcquireRetryAnswersTheSameLease(t *testing.T) {
	f := New()
	cmd := &raftv1.AcquireWorker{Holder: "app-1", WorkerBits: 1, LeaseMs: testLeaseMs, ProposedAtMs: 100_000, RequestId: "r1"}
	first := mustApply(t, f, AcquireWorkerCommand, cmd).(WorkerLease)
	if again := mustApply(t, f, AcquireWorkerCommand, cmd); again != first {
		t.Fatalf("retry answered %v, first %+v", again, first)
	}
	renewed := mustRenew(t, f, first.Worker, first.Epoch, testLeaseMs, 105_000)
	if again := mustApply(t, f, AcquireWorkerCommand, cmd); again != renewed {
		t.Fatalf("retry after a renewal answered %v, the lease is %+v", again, renewed)
	}
	other := proto.Clone(cmd).(*raftv1.AcquireWorker)
	other.Holder = "app-2"
	wantErr(t, mustApply(t, f, AcquireWorkerCommand, other), ErrRequestIDReused, "request_id")
	if l := mustAcquire(t, f, 1, 120_000); l.Worker != first.Worker || l.Epoch != 2 { // lapsed at 115,000
		t.Fatalf("reuse %+v", l)
	}
	wantErr(t, mustApply(t, f, AcquireWorkerCommand, cmd), ErrWorkerLeaseLost, `"r1"`)
	if ws := mustWorkers(t, f, ""); len(ws) != 1 {
		t.Fatalf("retries leased more workers: %+v", ws)
	}
}

func TestWorkersGoWithTheirDatabase(t *testing.T) {
	f := New()
	mustApplyOK(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "db1"})
	l := mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Database: "DB1", WorkerBits: 4, LeaseMs: 1000, ProposedAtMs: 1000}).(WorkerLease)
	if l.Database != "db1" || l.Worker != 0 {
		t.Fatalf("lease %+v", l)
	}
	if ws := mustWorkers(t, f, ""); ws != nil {
		t.Fatalf("the default database has workers %+v", ws)
	}
	wantErr(t, mustApply(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "db1"}), ErrDatabaseNotEmpty, "1 workers")
	mustApplyOK(t, f, DeleteDatabaseCommand, &raftv1.DeleteDatabase{Name: "db1", Force: true})
	wantErr(t, mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Database: "db1", WorkerBits: 4, LeaseMs: 1000}), ErrDatabaseNotFound, "db1")
	wantErr(t, mustApply(t, f, RenewWorkerCommand, &raftv1.RenewWorker{Database: "db1", Epoch: 1, LeaseMs: 1000}), ErrDatabaseNotFound, "db1")
	wantErr(t, mustApply(t, f, ReleaseWorkerCommand, &raftv1.ReleaseWorker{Database: "db1", Epoch: 1}), ErrDatabaseNotFound, "db1")
	if _, err := f.Workers("db1"); !errors.Is(err, ErrDatabaseNotFound) {
		t.Fatalf("workers of a deleted database: %v", err)
	}
	// Created again, it goes on with the workers and high-waters it had.
	mustApplyOK(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "db1"})
	wantErr(t, mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Database: "db1", WorkerBits: 5, LeaseMs: 1000}), ErrWorkerBitsDiffer, "4 worker bits")
	again := mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{Database: "db1", WorkerBits: 4, LeaseMs: 1000, ProposedAtMs: 1500}).(WorkerLease)
	if again.Worker != 1 {
		t.Fatalf("after re-creation %+v", again)
	}
}

// workerLogs is a history of worker calls in two databases: leases, renewals, releases,
// lapses, refusals, a retry.
func workerLogs(t *testing.T) []*raft.Log {
	t.Helper()
	var logs []*raft.Log
	add := func(typ CommandType, m proto.Message) {
		data, err := Encode(typ, m)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: uint64(len(logs) + 1), Type: raft.LogCommand, Data: data})
	}
	add(CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "db1"})
	at := int64(1_000_000)
	for i := range 40 {
		at += int64(i%7) * 700
		db := []string{"", "db1"}[i%2]
		add(AcquireWorkerCommand, &raftv1.AcquireWorker{Database: db, Holder: "h", WorkerBits: 2, LeaseMs: int64(1000 + i*300), ProposedAtMs: at, RequestId: []string{"", "a", "b"}[i%3]})
		add(RenewWorkerCommand, &raftv1.RenewWorker{Database: db, Worker: uint32(i % 5), Epoch: uint64(1 + i%3), LeaseMs: 2000, ProposedAtMs: at - 500})
		if i%4 == 0 {
			add(ReleaseWorkerCommand, &raftv1.ReleaseWorker{Database: db, Worker: uint32(i % 4), Epoch: uint64(1 + i%2), ProposedAtMs: at})
		}
	}
	return logs
}

func TestWorkerBatchesAnswerAsSingleEntries(t *testing.T) {
	logs := workerLogs(t)
	one, batched := New(), New()
	var answers []any
	for _, l := range logs {
		answers = append(answers, one.Apply(l))
	}
	if got := batched.ApplyBatch(logs); !reflect.DeepEqual(got, answers) {
		t.Fatalf("ApplyBatch answered\n%v\nApply\n%v", got, answers)
	}
	if !bytes.Equal(snapshotBytes(t, one), snapshotBytes(t, batched)) {
		t.Fatal("the replicas' snapshots differ")
	}
	var leases, refused int
	for _, a := range answers {
		switch a.(type) {
		case WorkerLease:
			leases++
		case error:
			refused++
		}
	}
	if leases < 20 || refused < 10 {
		t.Fatalf("the history tests little: %d leases, %d refusals", leases, refused)
	}
}

func TestWorkersSnapshotRoundTrip(t *testing.T) {
	logs := workerLogs(t)
	orig := New()
	orig.ApplyBatch(logs[:len(logs)/2])
	snap := snapshotBytes(t, orig)
	if len(mustWorkers(t, orig, "")) == 0 || len(mustWorkers(t, orig, "db1")) == 0 {
		t.Fatal("the history leased no workers")
	}
	restored := mustRestore(t, snap)
	if again := snapshotBytes(t, restored); !bytes.Equal(snap, again) {
		t.Fatal("a restored snapshot writes other bytes")
	}
	for _, db := range []string{"", "db1"} {
		if a, b := mustWorkers(t, orig, db), mustWorkers(t, restored, db); !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: workers %+v, restored %+v", db, a, b)
		}
	}
	// The restored expiry order answers the rest of the history as the original does.
	for _, l := range logs[len(logs)/2:] {
		if a, b := orig.Apply(l), restored.Apply(l); !reflect.DeepEqual(a, b) {
			t.Fatalf("entry %d: %v, restored %v", l.Index, a, b)
		}
	}
	if !bytes.Equal(snapshotBytes(t, orig), snapshotBytes(t, restored)) {
		t.Fatal("the original and the restored state diverged")
	}
}

func TestRestoreRefusesWorkersOutOfOrder(t *testing.T) {
	f := New()
	mustAcquire(t, f, 2, 1000)
	mustAcquire(t, f, 2, 1000)
	snap := snapshotBytes(t, f)
	rec, err := proto.Marshal(&raftv1.WorkerRecord{Worker: 3, Epoch: 1, WorkerBits: 2})
	if err != nil {
		t.Fatal(err)
	}
	bad := append(append(bytes.Clone(snap), byte(workerRecord), byte(len(rec))), rec...)
	if _, _, err := readSnapshot(bytes.NewReader(bad), nil); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("a gap in the workers restored: %v", err)
	}
}

// However the calls and the proposers' clocks come, no holder may mint at a time an earlier
// holder of its worker may have minted at, no high-water falls, and no worker goes to another
// holder before its lease lapsed by the log's clock.
func TestWorkerHoldersNeverShareATime(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	f := New()
	at, clock := int64(1_000_000), int64(0)
	highest := map[uint32]int64{}      // by worker: the highest MaxMs any of its leases answered
	epochs := map[uint32]uint64{}      // by worker: its newest epoch seen
	listed := map[uint32]WorkerLease{} // by worker: as last listed
	for i := range 5000 {
		at += rng.Int64N(600) - 200 // proposers' clocks go back now and then
		clock = max(clock, at)
		// Mostly the worker's newest epoch, else the one before or after it; worker 4 is
		// outside the layout.
		w := uint32(rng.IntN(5))
		epoch := max(epochs[w]+uint64(rng.IntN(4)), 1) - 1
		var a any
		switch rng.IntN(3) {
		case 0:
			a = mustApply(t, f, AcquireWorkerCommand, &raftv1.AcquireWorker{WorkerBits: 2, LeaseMs: 1000 + rng.Int64N(5000), ProposedAtMs: at})
		case 1:
			a = renew(t, f, w, epoch, 1000+rng.Int64N(5000), at)
		default:
			a = release(t, f, w, epoch, at)
		}
		if l, ok := a.(WorkerLease); ok {
			if l.MinMs >= l.MaxMs || l.ExpiresAtMs > l.MaxMs {
				t.Fatalf("call %d: lease %+v mints in nothing", i, l)
			}
			if l.Epoch > epochs[l.Worker] {
				if l.MinMs < highest[l.Worker] {
					t.Fatalf("call %d: epoch %d of worker %d mints above %d, an earlier holder up to %d", i, l.Epoch, l.Worker, l.MinMs, highest[l.Worker])
				}
				if was, ok := listed[l.Worker]; ok && was.ExpiresAtMs > clock {
					t.Fatalf("call %d: worker %d went to epoch %d at %d, its lease %+v had not lapsed", i, l.Worker, l.Epoch, clock, was)
				}
				epochs[l.Worker] = l.Epoch
			}
			highest[l.Worker] = max(highest[l.Worker], l.MaxMs)
		}
		for _, l := range mustWorkers(t, f, "") {
			if l.MaxMs < listed[l.Worker].MaxMs {
				t.Fatalf("call %d: the high-water of worker %d fell from %d to %d", i, l.Worker, listed[l.Worker].MaxMs, l.MaxMs)
			}
			listed[l.Worker] = l
		}
	}
	if len(epochs) != 4 || epochs[0] < 10 {
		t.Fatalf("the calls tested little: epochs %v", epochs)
	}
}

func TestWorkersFromPages(t *testing.T) {
	f := New()
	for range 5 {
		mustAcquire(t, f, 3, 100_000)
	}
	all := mustWorkers(t, f, "")
	var paged []WorkerLease
	for from, more := uint32(0), true; more; from += 2 {
		page, m, err := f.WorkersFrom("", from, 2)
		if err != nil {
			t.Fatal(err)
		}
		paged, more = append(paged, page...), m
	}
	if !reflect.DeepEqual(paged, all) {
		t.Fatalf("pages of 2: %+v, want %+v", paged, all)
	}
	for _, c := range []struct {
		from uint32
		n    int
	}{{5, 2}, {math.MaxUint32, 2}, {0, 0}} {
		if page, more, err := f.WorkersFrom("", c.from, c.n); len(page) != 0 || more || err != nil {
			t.Errorf("WorkersFrom(%d, %d) = %v, %v, %v; want nothing", c.from, c.n, page, more, err)
		}
	}
	if _, _, err := f.WorkersFrom("nope", 0, 2); !errors.Is(err, ErrDatabaseNotFound) {
		t.Errorf("WorkersFrom of an unknown database: %v", err)
	}
}
