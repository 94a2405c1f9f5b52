package fsm

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idnode/idnode/opaque"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// numericFormOf is the form of an opaque-numeric database's value v under key, from a codec
// made for the call.
func numericFormOf(t testing.TB, key []byte, v int64) string {
	t.Helper()
	c, err := opaque.NewCodec(key, []byte(OpaqueNumericTweak), 0, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	form, err := c.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return form
}

// formOf42 is the form of 42 from codec, or the reason there is none.
func formOf42(codec *opaque.Codec, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	if codec == nil {
		return "no codec"
	}
	form, err := codec.Encode(42)
	if err != nil {
		return "error: " + err.Error()
	}
	return form
}

// The codecs the state hands out write what a codec made for the call writes, under
// contention, for every spelling of a collection, and the numeric IDs' apart from the
// collections'. Each is made once and kept with the database's setting, and only opaque
// collections and opaque numeric IDs get one, whatever names callers ask for.
func TestOpaqueCodecsAreKeptAndWriteFreshCodecsForms(t *testing.T) {
	f := New()
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders", "Tickets"}, Key: opaqueKeyA, Numeric: true})
	want := map[string]string{
		"orders": formOf(t, opaqueKeyA, "orders", 42), "Orders": formOf(t, opaqueKeyA, "orders", 42),
		"TICKETS": formOf(t, opaqueKeyA, "tickets", 42), "#numeric": numericFormOf(t, opaqueKeyA, 42),
		"plain": "no codec",
	}
	names := []string{"orders", "Orders", "TICKETS", "#numeric", "plain"}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for r := range 50 {
				name := names[(g*7+r)%len(names)]
				var got string
				if name == "#numeric" {
					got = formOf42(f.OpaqueNumericCodec(""))
				} else {
					got = formOf42(f.OpaqueIdentityCodec("", name))
				}
				if got != want[name] {
					errs <- fmt.Errorf("%s: the form of 42 is %s, want %s", name, got, want[name])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	a, _ := f.OpaqueIdentityCodec("", "ORDERS")
	b, _ := f.OpaqueIdentityCodec("", "orders")
	if a == nil || a != b {
		t.Errorf("orders and ORDERS got codecs %p and %p, want one kept codec", a, b)
	}
	if kept := *f.st.databases[DefaultDatabase].opaque.codecs.kept.Load(); len(kept) != 3 {
		t.Errorf("%d codecs kept, want 3 (orders, tickets, the numeric IDs)", len(kept))
	}
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "db1"})
	for _, db := range []string{"nosuch", "db1"} {
		if c, err := f.OpaqueIdentityCodec(db, "orders"); c != nil || err != nil {
			t.Errorf("database %q, which is not opaque: codec %p, %v", db, c, err)
		}
	}
}

// A snapshot install that changes a database's key leaves no codec of the old key anywhere:
// the node's answers (OpaqueIdentityCodec, OpaqueNumericCodec) and the FSM's claims both write
// and read the new key's forms at once, while readers ask for codecs throughout.
func TestOpaqueCodecsFollowASnapshotInstall(t *testing.T) {
	f := New()
	mustMakeOpaque(t, f, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyA, Numeric: true})
	leader := New()
	mustMakeOpaque(t, leader, &raftv1.MakeOpaque{Collections: []string{"orders"}, Key: opaqueKeyB, Numeric: true})
	mustClaim(t, leader, "", "orders/"+formOf(t, opaqueKeyB, "orders", 2))
	snap := snapshotBytes(t, leader)

	oldForms := []string{formOf(t, opaqueKeyA, "orders", 42), numericFormOf(t, opaqueKeyA, 42)}
	newForms := []string{formOf(t, opaqueKeyB, "orders", 42), numericFormOf(t, opaqueKeyB, 42)}
	forms := func() []string {
		return []string{formOf42(f.OpaqueIdentityCodec("", "Orders")), formOf42(f.OpaqueNumericCodec(""))}
	}
	if got := forms(); !slices.Equal(got, oldForms) {
		t.Fatalf("before the install: forms %q, want the first key's %q", got, oldForms)
	}

	var (
		installed atomic.Bool
		readers   sync.WaitGroup
		stop      = make(chan struct{})
		errs      = make(chan error, 4)
	)
	for range 4 {
		readers.Go(func() {
			for {
				after := installed.Load() // before the read: if set, the read follows the install
				got := forms()
				// The two codecs are read by two calls, and the install may fall between them:
				// each form is the new key's, or the old key's while the install is not done.
				for i := range got {
					if got[i] != newForms[i] && (after || got[i] != oldForms[i]) {
						errs <- fmt.Errorf("installed %t: forms %q, want %q (or, before the install, each may still be %q)", after, got, newForms, oldForms)
						return
					}
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	if err := f.Restore(io.NopCloser(bytes.NewReader(snap))); err != nil {
		t.Fatal(err)
	}
	installed.Store(true)
	if got := forms(); !slices.Equal(got, newForms) {
		t.Errorf("after the install: forms %q, want the new key's %q", got, newForms)
	}
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The FSM reads the claimed form with the new key: its value, 2, is skipped.
	if r := mustIdentity(t, f, "orders", 3, ""); r.First != 1 || r.Last != 4 || len(r.Skipped) != 1 || r.Skipped[0] != 2 {
		t.Errorf("orders| x3 after the install = %+v, want 1..4 without the claimed form's 2", r)
	}
}
