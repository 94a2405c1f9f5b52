package fsm

import (
	"bytes"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// raiseFloors applies a backup's RaiseFloor commands to f and sums the workers they raised.
func raiseFloors(t *testing.T, f *FSM, b *Backup) (raised int) {
	t.Helper()
	for _, cmd := range b.RaiseFloorCommands(2) { // small commands: a database's workers span several
		res, ok := mustApply(t, f, RaiseFloorCommand, cmd).(RaiseFloorResult)
		if !ok {
			t.Fatalf("RaiseFloor answered %v", mustApply(t, f, RaiseFloorCommand, cmd))
		}
		raised += res.WorkersRaised
	}
	return raised
}

// A backup carries every worker's high-water: restored into a fresh cluster, a worker goes to a
// new holder only above it, as it would have in the backup's cluster.
func TestBackupCarriesWorkersHighWater(t *testing.T) {
	src := New()
	a := mustAcquire(t, src, 2, 100_000)                   // worker 0
	mustAcquire(t, src, 2, 100_000)                        // worker 1
	mustRenew(t, src, a.Worker, a.Epoch, 600_000, 100_000) // worker 0 may mint until 700,000
	mustApply(t, src, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "shop"})
	mustApply(t, src, AcquireWorkerCommand, &raftv1.AcquireWorker{Database: "shop", Holder: "s", WorkerBits: 5, LeaseMs: testLeaseMs, ProposedAtMs: 100_000})
	b := mustReadBackup(t, func(w *bytes.Buffer) error { return src.WriteBackup(w, IssueRates{}) })
	if len(b.Workers) != 3 {
		t.Fatalf("the backup holds %d workers, want 3", len(b.Workers))
	}

	dst := New()
	if got := raiseFloors(t, dst, b); got != 3 {
		t.Fatalf("the restore raised %d workers, want 3", got)
	}
	for _, db := range []string{"", "shop"} {
		if got, want := mustWorkers(t, dst, db), mustWorkers(t, src, db); !equalLeases(got, want) {
			t.Fatalf("database %q's workers after the restore:\n got  %+v\n want %+v", db, got, want)
		}
	}
	if got := raiseFloors(t, dst, b); got != 0 {
		t.Fatalf("the second restore raised %d workers, want none", got)
	}
	// Worker 1 lapsed at 110,000; worker 0's holder may mint until 700,000. A new holder gets
	// worker 1, and nobody gets worker 0 below its high-water.
	l := mustAcquire(t, dst, 2, 200_000)
	if l.Worker == a.Worker && l.MinMs < 700_000 {
		t.Fatalf("after the restore %+v mints below worker 0's high-water 700,000", l)
	}
}

// A worker this cluster has already keeps its lease; the backup's higher high-water wins, and a
// fresh epoch fences both clusters' holders: neither renews the worker again.
func TestRestoreRaisesAHeldWorkerAndFencesItsHolders(t *testing.T) {
	src := New()
	old := mustAcquire(t, src, 1, 100_000)
	mustRenew(t, src, old.Worker, old.Epoch, 900_000, 100_000)
	b := mustReadBackup(t, func(w *bytes.Buffer) error { return src.WriteBackup(w, IssueRates{}) })

	dst := New()
	here := mustAcquire(t, dst, 1, 150_000)
	if raised := raiseFloors(t, dst, b); raised != 1 {
		t.Fatalf("raised %d workers, want 1", raised)
	}
	ws := mustWorkers(t, dst, "")
	if ws[0].MaxMs != 1_000_000 || ws[0].Epoch != 2 || ws[0].ExpiresAtMs != here.ExpiresAtMs {
		t.Fatalf("worker 0 after the restore %+v; want the backup's high-water 1,000,000, epoch 2, its lease here kept", ws[0])
	}
	wantErr(t, renew(t, dst, here.Worker, here.Epoch, testLeaseMs, 151_000), ErrWorkerLeaseLost, "another holder's")
	wantErr(t, renew(t, dst, old.Worker, old.Epoch, testLeaseMs, 151_000), ErrWorkerLeaseLost, "another holder's")
	l := mustAcquire(t, dst, 1, 170_000) // the other worker
	if l.Worker == 0 {
		t.Fatalf("worker 0 handed out again while its lease here runs: %+v", l)
	}
}

// A backup whose database has another worker layout is refused before anything moves: IDs of
// two layouts do not keep apart by any high-water.
func TestRestoreRefusesAnotherWorkerLayout(t *testing.T) {
	src := New()
	mustAcquire(t, src, 4, 100_000)
	mustApply(t, src, SeedIdentityCommand, &raftv1.SeedIdentity{Name: "orders", Value: 50})
	b := mustReadBackup(t, func(w *bytes.Buffer) error { return src.WriteBackup(w, IssueRates{}) })

	dst := New()
	mustAcquire(t, dst, 3, 100_000)
	cmds := b.RaiseFloorCommands(100)
	if len(cmds) != 1 {
		t.Fatalf("%d commands, want 1", len(cmds))
	}
	wantErr(t, mustApply(t, dst, RaiseFloorCommand, cmds[0]), ErrWorkerBitsDiffer, "restore it into a database with the backup's layout")
	if v := dst.Identity("", "orders"); v != 0 {
		t.Fatalf("orders is %d after a refused restore, want 0", v)
	}
	bad := &raftv1.RaiseFloor{Workers: []*raftv1.WorkerRecord{{WorkerBits: 3, Worker: 2, HighWaterMs: 1}}}
	wantErr(t, mustApply(t, New(), RaiseFloorCommand, bad), ErrInvalidWorkerLease, "before worker 0")
}

func equalLeases(a, b []WorkerLease) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
