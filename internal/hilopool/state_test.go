package hilopool

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"
)

// A pool's state, as ListHiLo reports it: nothing before the node grants from it; after a
// grant of the tag in any case, what is left of the reservation, the size it is kept at, and
// when the cluster last added numbers.
func TestGranterStateOfAPool(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "pools.json"))
	next := int64(1)
	g := NewGranter(GranterConfig{Pools: s, Logger: slog.Default(), StoreError: func(err error) error { return err },
		Reserve: func(_ context.Context, _ Key, n int64) (int64, int64, error) {
			low := next
			next += n
			return low, next - 1, nil
		}})
	orders := Key{Database: "default", Tag: "orders"}
	if st := g.State(orders); st != (PoolState{}) {
		t.Fatalf("state before any grant = %+v; want none", st)
	}
	before := time.Now()
	low, high, ok, err := g.Grant(t.Context(), Key{Database: "default", Tag: "Orders"}, Request{ID: "g1", Capacity: 32}, before)
	if err != nil || !ok || low != 1 || high != 32 {
		t.Fatalf("Grant = %d–%d %v %v; want 1–32", low, high, ok, err)
	}
	st := g.State(Key{Database: "default", Tag: "ORDERS"})
	target := poolTarget(32, 0)
	if st.Remaining != target-32 || st.Target != target || st.ToppedUp.Before(before) {
		t.Fatalf("state after a grant of 32 = %+v; want %d left of a target of %d, topped up after %v", st, target-32, target, before)
	}
}
