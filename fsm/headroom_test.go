package fsm

import (
	"math"
	"reflect"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// TestHeadroomCountsWorkersAndKeepsTheLargestCounters: the workers of a layout split into
// leased, free and never used by the reader's clock; the largest identity counter and HiLo Max
// are the largest values reached, a forced lowering included, and a snapshot's restore
// rebuilds them from the values it holds.
func TestHeadroomCountsWorkersAndKeepsTheLargestCounters(t *testing.T) {
	f := New()
	for range 3 {
		mustAcquire(t, f, 2, 100_000) // 4 workers; leases to 110_000
	}
	if err, _ := release(t, f, 1, 1, 101_000).(error); err != nil {
		t.Fatal(err)
	}
	mustSeed(t, f, "Users", 1000, false)
	mustSeed(t, f, "orders", 5, false)
	mustSeed(t, f, "Users", 10, true) // forced lower: the largest reached stays
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "carts", Capacity: 32})
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "carts", Capacity: 64})

	got := headroomOf(t, f, 102_000)
	want := Headroom{
		Database: DefaultDatabase, WorkerBits: 2, WorkersLeased: 2, WorkersFree: 1, WorkersNeverUsed: 1,
		LargestIdentity: "Users", LargestIdentityValue: 1000, IdentityValuesLeft: math.MaxInt64 - 1000,
		LargestHiLo: "carts", LargestHiLoMax: 96, HiLoValuesLeft: math.MaxInt64 - 96,
	}
	if got != want {
		t.Fatalf("Headroom at 102000 = %+v\nwant %+v", got, want)
	}
	if got := headroomOf(t, f, 110_000); got.WorkersLeased != 0 || got.WorkersFree != 3 || got.WorkersNeverUsed != 1 {
		t.Errorf("Headroom once every lease lapsed = %+v, want 0 leased, 3 free, 1 never used", got)
	}

	restored := headroomOf(t, mustRestore(t, snapshotBytes(t, f)), 102_000)
	// The restore rebuilds the largest from the values held: Users is at 10 now.
	want.LargestIdentityValue, want.IdentityValuesLeft = 10, math.MaxInt64-10
	if !reflect.DeepEqual(restored, want) {
		t.Fatalf("Headroom after a restore = %+v\nwant %+v", restored, want)
	}
}

func TestHeadroomOfADatabaseWithNothingYet(t *testing.T) {
	got := headroomOf(t, New(), 0)
	want := Headroom{Database: DefaultDatabase, IdentityValuesLeft: math.MaxInt64, HiLoValuesLeft: math.MaxInt64}
	if got != want {
		t.Fatalf("Headroom of a new FSM = %+v, want %+v", got, want)
	}
}

func headroomOf(t *testing.T, f *FSM, nowMs int64) Headroom {
	t.Helper()
	all := f.Headroom(nowMs)
	if len(all) != 1 {
		t.Fatalf("Headroom = %+v, want the default database alone", all)
	}
	return all[0]
}
