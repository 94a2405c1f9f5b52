package fsm

import (
	"bytes"
	"errors"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func mustPool(t *testing.T, f *FSM, member, tag string, capacity int64) HiLoRange {
	t.Helper()
	rng, ok := mustApply(t, f, HiLoPoolReserveCommand, &raftv1.HiLoPoolReserve{Tag: tag, Capacity: capacity, MemberId: member}).(HiLoRange)
	if !ok {
		t.Fatalf("pool reserve for %s answered no range", member)
	}
	return rng
}

// A pool's numbers are above Max like any range, so pools never overlap each other or the
// ranges granted through the cluster; none of them comes back through ReturnHiLo.
func TestHiLoPoolsAreDisjointFromEverything(t *testing.T) {
	f := New()
	for _, tag := range []string{"A", "B"} {
		mustApply(t, f, RegisterNodeCommand, registerCommand(tag, tag, "inc-"+tag))
	}
	a1 := mustPool(t, f, "A", "orders", 100)
	r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "Orders", Capacity: 32})
	b1 := mustPool(t, f, "B", "ORDERS", 50)
	a2 := mustPool(t, f, "A", "orders", 100)
	want := []HiLoRange{{Low: 1, High: 100}, {Low: 101, High: 132}, {Low: 133, High: 182}, {Low: 183, High: 282}}
	for i, got := range []HiLoRange{a1, r, b1, a2} {
		if got != want[i] {
			t.Fatalf("reservation %d = %+v, want %+v", i, got, want[i])
		}
	}
	// The newest reservation is a pool's: a return through the cluster changes nothing.
	if res := mustApply(t, f, HiLoReturnCommand, &raftv1.HiLoReturn{Tag: "orders", End: 282, Last: 200}); res != int64(282) {
		t.Fatalf("ReturnHiLo into A's pool = %v, want Max 282 unchanged", res)
	}
	if got := f.HiLoPools("", "orders"); got["A"] != 200 || got["B"] != 50 || len(got) != 2 {
		t.Fatalf("pools = %v", got)
	}

	snap := snapshotBytes(t, f)
	g := mustRestore(t, snap)
	if !bytes.Equal(snapshotBytes(t, g), snap) || g.HiLoPools("", "orders")["A"] != 200 {
		t.Fatal("pools do not survive a snapshot exactly")
	}

	// A removed node's pools are retired: forgotten, and it gets no more.
	mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "A"})
	if got := f.HiLoPools("", "orders"); len(got) != 1 || got["B"] != 50 {
		t.Fatalf("pools after removing A = %v", got)
	}
	res := mustApply(t, f, HiLoPoolReserveCommand, &raftv1.HiLoPoolReserve{Tag: "orders", Capacity: 10, MemberId: "A"})
	if err, _ := res.(error); !errors.Is(err, ErrNotRegistered) {
		t.Fatalf("a pool for removed A = %v, want ErrNotRegistered", res)
	}
	if next := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 1}); next.Low != 283 {
		t.Fatalf("next range after the refused pool = %+v, want 283 (nothing reserved)", next)
	}
	for _, bad := range []*raftv1.HiLoPoolReserve{{Tag: "x", Capacity: 0, MemberId: "B"}, {Tag: "x", Capacity: 1, MemberId: "B", Database: "nope"}} {
		if _, ok := mustApply(t, f, HiLoPoolReserveCommand, bad).(error); !ok {
			t.Errorf("pool reserve %v was not refused", bad)
		}
	}
}

// A seed or a restore sets the floor pools grant above; a snapshot keeps it.
func TestHiLoFloor(t *testing.T) {
	f := New()
	mustApply(t, f, RegisterNodeCommand, registerCommand("A", "A", "inc-A"))
	mustPool(t, f, "A", "orders", 1000)
	mustApply(t, f, SeedHiLoCommand, &raftv1.SeedHiLo{Tag: "orders", Max: 500})
	if got := f.HiLoFloor("", "ORDERS"); got != 500 {
		t.Fatalf("floor after a seed below Max = %d, want 500", got)
	}
	mustApply(t, f, SeedHiLoCommand, &raftv1.SeedHiLo{Tag: "orders", Max: 100})
	if got := mustRestore(t, snapshotBytes(t, f)).HiLoFloor("", "orders"); got != 500 {
		t.Fatalf("floor after a lower seed and a snapshot = %d, want 500", got)
	}
}

// HiLoTags pages a database's tags in order, case-insensitively, with each one's Max, floor
// and pools; the page is a copy the caller may keep.
func TestHiLoTagsPage(t *testing.T) {
	f := New()
	mustApply(t, f, RegisterNodeCommand, registerCommand("A", "A", "inc-A"))
	for _, tag := range []string{"Orders", "carts", "orders-eu", "users"} {
		mustReserve(t, f, &raftv1.HiLoReserve{Tag: tag, Capacity: 32})
	}
	mustPool(t, f, "A", "orders", 100)
	mustApply(t, f, SeedHiLoCommand, &raftv1.SeedHiLo{Tag: "users", Max: 1000})
	page, more, err := f.HiLoTags("", "ORD", "", 1)
	if err != nil || !more || len(page) != 1 || page[0].Tag != "orders" || page[0].Max != 132 || page[0].Pools["A"] != 100 {
		t.Fatalf("first page of ORD = %+v, more %v, %v; want orders (Max 132, A's pool 100) and more", page, more, err)
	}
	page[0].Pools["A"] = 0
	if f.HiLoPools("", "orders")["A"] != 100 {
		t.Fatal("changing a page changed the state")
	}
	page, more, err = f.HiLoTags("", "ord", "orders", 10)
	if err != nil || more || len(page) != 1 || page[0].Tag != "orders-eu" {
		t.Fatalf("second page of ord = %+v, more %v, %v; want orders-eu, the last", page, more, err)
	}
	if page, _, _ := f.HiLoTags("", "users", "", 10); len(page) != 1 || page[0].Floor != 1000 || page[0].Max != 1000 {
		t.Fatalf("users after a seed to 1000 = %+v", page)
	}
	if _, _, err := f.HiLoTags("nope", "", "", 10); err == nil {
		t.Fatal("a database that does not exist answered a page")
	}
}
