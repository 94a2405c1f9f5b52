package fsm

import (
	"bytes"
	"errors"
	"math"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// A node's published reservations only grow, survive a snapshot and a re-registration, are
// answered as they stand after the command, and go with the node when it is removed.
func TestLocalReservationsOnlyGrow(t *testing.T) {
	f := New()
	mustApply(t, f, RegisterNodeCommand, registerCommand("A", "A", "inc-A"))
	publish := func(etag uint64, pools ...*raftv1.PoolMark) any {
		return mustApply(t, f, LocalReservationsCommand, &raftv1.LocalReservations{MemberId: "A", Etag: etag, Pools: pools})
	}
	publish(200_000, &raftv1.PoolMark{Tag: "orders", Granted: 64})
	got, ok := publish(100_000, &raftv1.PoolMark{Tag: "Orders", Granted: 32}, &raftv1.PoolMark{Database: "Shop", Tag: "users", Granted: 7}).(Reservations)
	if !ok || got.Etag != 200_000 || got.Pools[PoolKey{DefaultDatabase, "orders"}] != 64 || got.Pools[PoolKey{"shop", "users"}] != 7 {
		t.Fatalf("after a lower publication the record is %+v, want etag 200000, orders 64, shop/users 7", got)
	}
	mustApply(t, f, RegisterNodeCommand, registerCommand("A", "A", "inc-A"))
	snap := snapshotBytes(t, f)
	g := mustRestore(t, snap)
	if !bytes.Equal(snapshotBytes(t, g), snap) {
		t.Fatal("the record does not survive a snapshot byte for byte")
	}
	if res, ok := g.Reservations("A"); !ok || res.Etag != 200_000 || res.Pools[PoolKey{"shop", "users"}] != 7 {
		t.Fatalf("restored record = %+v, %v", res, ok)
	}
	for name, bad := range map[string]*raftv1.LocalReservations{
		"unregistered":    {MemberId: "B", Etag: 1},
		"etag":            {MemberId: "A", Etag: math.MaxInt64 + 1},
		"negative":        {MemberId: "A", Pools: []*raftv1.PoolMark{{Tag: "t", Granted: -1}}},
		"no tag":          {MemberId: "A", Pools: []*raftv1.PoolMark{{Granted: 1}}},
		"long seal":       {MemberId: "A", Seal: make([]byte, 33)},
		"seal and unseal": {MemberId: "A", Seal: []byte{1}, Unseal: []byte{1}},
	} {
		if err, _ := mustApply(t, f, LocalReservationsCommand, bad).(error); !errors.Is(err, ErrNotRegistered) && !errors.Is(err, ErrBadReservation) {
			t.Errorf("%s: answer %v, want a refusal", name, err)
		}
	}
	digest := bytes.Repeat([]byte{7}, 32)
	mustApply(t, f, LocalReservationsCommand, &raftv1.LocalReservations{MemberId: "A", Seal: digest})
	sealed := mustRestore(t, snapshotBytes(t, f))
	for name, fsm := range map[string]*FSM{"live": f, "restored": sealed} {
		other := mustApply(t, fsm, LocalReservationsCommand, &raftv1.LocalReservations{MemberId: "A", Unseal: []byte("another file")}).(Reservations)
		again := mustApply(t, fsm, LocalReservationsCommand, &raftv1.LocalReservations{MemberId: "A", Unseal: digest}).(Reservations)
		if other.SealMatched || again.SealMatched || other.Seal != nil {
			t.Fatalf("%s: another file's digest matched (%v), or the seal outlived the first unseal (%v, %x)", name, other.SealMatched, again.SealMatched, other.Seal)
		}
	}
	mustApply(t, f, LocalReservationsCommand, &raftv1.LocalReservations{MemberId: "A", Seal: digest})
	if res := mustApply(t, f, LocalReservationsCommand, &raftv1.LocalReservations{MemberId: "A", Unseal: digest}).(Reservations); !res.SealMatched || res.Etag != 200_000 {
		t.Fatalf("unsealing with the sealed digest = %+v; want matched, the record kept", res)
	}
	mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "A"})
	if _, ok := f.Reservations("A"); ok {
		t.Fatal("a removed node still has a record")
	}
}
