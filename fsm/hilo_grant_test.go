package fsm

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/idnode/idnode/internal/hilogrant"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// grantOf applies a HiLoGrant (command 20) and returns its range or error.
func grantOf(t testing.TB, f *FSM, r *raftv1.HiLoReserve) (HiLoRange, error) {
	t.Helper()
	switch res := mustApply(t, f, HiLoGrantCommand, r).(type) {
	case HiLoRange:
		return res, nil
	case error:
		return HiLoRange{}, res
	default:
		t.Fatalf("HiLoGrant %v answered %#v", r, res)
		return HiLoRange{}, nil
	}
}

func mustGrantRange(t testing.TB, f *FSM, tag, requestID string, capacity, lastMax int64) HiLoRange {
	t.Helper()
	rng, err := grantOf(t, f, &raftv1.HiLoReserve{Tag: tag, Capacity: capacity, LastMax: lastMax, RequestId: requestID, GrantId: "proposer-" + requestID})
	if err != nil {
		t.Fatalf("HiLoGrant(%s, %s, %d, last_max %d): %v", tag, requestID, capacity, lastMax, err)
	}
	return rng
}

// returnOf applies a HiLoReturnGrant (command 21).
func returnOf(t testing.TB, f *FSM, tag, id string, end, last int64) (bool, error) {
	t.Helper()
	switch res := mustApply(t, f, HiLoReturnGrantCommand, &raftv1.HiLoReturn{Tag: tag, End: end, Last: last, GrantId: id}).(type) {
	case HiLoReturned:
		return bool(res), nil
	case error:
		return false, res
	default:
		t.Fatalf("HiLoReturnGrant answered %#v", res)
		return false, nil
	}
}

// A returned range must never be granted again; in the FSM, a range goes back only with its grant
// id, once, while newest; a return that cannot be right is an error; a retry of a returned request
// gets a new range.
func TestHiLoGrantReturnsOnlyByItsGranteeOnceWhileNewest(t *testing.T) {
	f := New()
	r1 := mustGrantRange(t, f, "orders", "r1", 32, 0)
	if r1 != (HiLoRange{Low: 1, High: 32, GrantID: "r1"}) {
		t.Fatalf("first range = %+v, want 1..32 granted as r1", r1)
	}
	for _, c := range []struct {
		id        string
		end, last int64
		want      error
	}{
		{"", 32, 0, hilogrant.ErrNoGrantID},
		{"r1", 32, 40, hilogrant.ErrLastAboveEnd},
		{"r1", 31, 0, hilogrant.ErrNotGrantedRange},
		{"r1", 32, -1, hilogrant.ErrNotGrantedRange},
		{"stranger", 32, 0, nil},
	} {
		if ok, err := returnOf(t, f, "orders", c.id, c.end, c.last); ok || !errors.Is(err, c.want) {
			t.Errorf("return(%q, %d, %d) = %v, %v; want refused with %v", c.id, c.end, c.last, ok, err, c.want)
		}
	}
	if ok, err := returnOf(t, f, "Orders", "r1", 32, 0); !ok || err != nil {
		t.Fatalf("the grantee's whole return = %v, %v", ok, err)
	}
	if ok, err := returnOf(t, f, "orders", "r1", 32, 0); ok || err != nil {
		t.Fatalf("a second return = %v, %v; want not returned", ok, err)
	}
	if r2 := mustGrantRange(t, f, "orders", "r2", 32, 0); r2.Low != 1 {
		t.Fatalf("the range after the return = %+v, want it to start at 1", r2)
	}
	if ok, _ := returnOf(t, f, "orders", "r1", 32, 0); ok {
		t.Fatal("r1 gave back r2's range")
	}
	if again := mustGrantRange(t, f, "orders", "r1", 32, 0); again != (HiLoRange{Low: 33, High: 64, GrantID: "r1"}) {
		t.Fatalf("the retry of r1, whose range was returned = %+v; want a new range 33..64", again)
	}
	// The new range is r1's now: its retry replays it, and it can be given back.
	if again := mustGrantRange(t, f, "orders", "r1", 32, 0); again.Low != 33 {
		t.Fatalf("a second retry of r1 = %+v, want 33..64 again", again)
	}
	if ok, err := returnOf(t, f, "orders", "r1", 64, 40); !ok || err != nil {
		t.Fatalf("return of the new range's tail = %v, %v", ok, err)
	}
	if again := mustGrantRange(t, f, "orders", "r1", 32, 0); again.Low != 41 {
		t.Fatalf("retry after a partial return = %+v, want a new range from 41", again)
	}
}

// Close's two returns: the prefetched range whole, then the tail of the one right below it.
// A range below that is not right under the newest never comes back.
func TestHiLoGrantReturnsTheRangeBelowOnceTheNewestIsBack(t *testing.T) {
	f := New()
	cur := mustGrantRange(t, f, "orders", "cur", 32, 0)
	next := mustGrantRange(t, f, "orders", "next", 64, cur.High)
	if ok, _ := returnOf(t, f, "orders", "cur", cur.High, 2); ok {
		t.Fatal("the range below came back while the newest is held")
	}
	if ok, err := returnOf(t, f, "orders", "next", next.High, next.Low-1); !ok || err != nil {
		t.Fatalf("return of the prefetched range = %v, %v", ok, err)
	}
	if ok, err := returnOf(t, f, "orders", "cur", cur.High, 2); !ok || err != nil {
		t.Fatalf("return of the current tail after it = %v, %v", ok, err)
	}
	if got := f.HiLoMax("", "orders"); got != 2 {
		t.Fatalf("Max = %d, want 2", got)
	}

	a := mustGrantRange(t, f, "gap", "a", 32, 0)
	b := mustGrantRange(t, f, "gap", "b", 32, 100) // above last_max 100: not right after a
	if ok, _ := returnOf(t, f, "gap", "b", b.High, b.Low-1); !ok {
		t.Fatal("return of b refused")
	}
	if ok, _ := returnOf(t, f, "gap", "a", a.High, 0); ok {
		t.Fatal("a came back though b did not start right after it")
	}
}

// A pool reservation or a seed above the newest grant: nothing below can come back.
func TestHiLoGrantNotReturnableAfterASeed(t *testing.T) {
	f := New()
	r := mustGrantRange(t, f, "orders", "r", 32, 0)
	mustApply(t, f, SeedHiLoCommand, &raftv1.SeedHiLo{Tag: "orders", Max: 500})
	if ok, _ := returnOf(t, f, "orders", "r", r.High, 0); ok {
		t.Fatal("a range below a seed came back")
	}
}

// A caller's last_max may lift a tag to MaxLastMax, not past it (unless Max is past it),
// and a full tag names the overflow.
func TestHiLoGrantBoundsLastMax(t *testing.T) {
	f := New()
	_, err := grantOf(t, f, &raftv1.HiLoReserve{Tag: "t", Capacity: 32, LastMax: math.MaxInt64 - 100, GrantId: "g"})
	if !errors.Is(err, ErrLastMaxOutOfRange) {
		t.Fatalf("last_max 2^63-101 = %v, want ErrLastMaxOutOfRange", err)
	}
	if _, err := grantOf(t, f, &raftv1.HiLoReserve{Tag: "t", Capacity: 32, LastMax: -1, GrantId: "g"}); !errors.Is(err, ErrNegativeValue) {
		t.Fatalf("last_max -1 = %v, want ErrNegativeValue", err)
	}
	if r := mustGrantRange(t, f, "t", "", 32, MaxLastMax); r.Low != MaxLastMax+1 {
		t.Fatalf("last_max at the bound = %+v", r)
	}
	// At or below Max, any last_max is one a range of the tag may have ended at.
	if r := mustGrantRange(t, f, "t", "", 32, MaxLastMax+32); r.Low != MaxLastMax+33 {
		t.Fatalf("last_max = Max above the bound = %+v", r)
	}
	for range 1000 {
		mustGrantRange(t, f, "t", "", 1<<20, 0) // the tag still grants
	}
	mustApply(t, f, SeedHiLoCommand, &raftv1.SeedHiLo{Tag: "full", Max: math.MaxInt64 - 10})
	if _, err := grantOf(t, f, &raftv1.HiLoReserve{Tag: "full", Capacity: 32, GrantId: "g"}); !errors.Is(err, ErrCounterOverflow) {
		t.Fatalf("a range past int64 = %v, want ErrCounterOverflow", err)
	}
	// The command builds before bounds wrote keeps its meaning for the entries in logs.
	if r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "old", Capacity: 32, LastMax: math.MaxInt64 - 100}); r.Low != math.MaxInt64-99 {
		t.Fatalf("command 3 with a large last_max = %+v, want it applied as before", r)
	}
}

// Grants survive a snapshot: after a restore the same returns are accepted and refused.
func TestHiLoGrantsSurviveASnapshot(t *testing.T) {
	f := New()
	cur := mustGrantRange(t, f, "orders", "cur", 32, 0)
	next := mustGrantRange(t, f, "orders", "next", 64, cur.High)
	data := snapshotBytes(t, f)
	g := mustRestore(t, data)
	if again := snapshotBytes(t, g); string(again) != string(data) {
		t.Fatal("a restored FSM snapshots other bytes")
	}
	for _, h := range []*FSM{f, g} {
		if ok, _ := returnOf(t, h, "orders", "next", next.High, next.Low-1); !ok {
			t.Fatal("return of the newest refused")
		}
		if ok, _ := returnOf(t, h, "orders", "cur", cur.High, 5); !ok {
			t.Fatal("return of the one below refused")
		}
	}
}

// FuzzHiLoGrantsNeverRegrant applies arbitrary sequences of HiLo commands from four clients,
// each giving back only ranges it holds (with any end and last) or presenting an id it never
// got, retrying its own request ids, and an operator seeding: no number may be granted while
// a client holds it.
func FuzzHiLoGrantsNeverRegrant(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 1, 2, 0, 0})
	f.Add([]byte{0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 2, 1, 5})
	f.Add([]byte{0, 1, 0, 1, 1, 0, 0, 2, 0, 3, 0, 9, 0, 1, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		type held struct {
			id        string
			low, high int64
		}
		fsm := New()
		holds := make([][]held, 4)
		var requests [4][]string
		check := func(who int, r HiLoRange) {
			for c, hs := range holds {
				for _, h := range hs {
					if c == who && h.id == r.GrantID && h.low == r.Low {
						continue // a replay of its own range
					}
					if r.Low <= h.high && h.low <= r.High {
						t.Fatalf("client %d granted %d..%d while client %d holds %d..%d", who, r.Low, r.High, c, h.low, h.high)
					}
				}
			}
		}
		for i := 0; i+2 < len(ops) && i < 3*200; i += 3 {
			op, who, arg := ops[i]%4, int(ops[i+1]%4), int64(ops[i+2])
			switch op {
			case 0: // a new request, or a retry of one of its own
				id := fmt.Sprintf("c%d-%d", who, len(requests[who]))
				if n := len(requests[who]); n > 0 && arg%2 == 1 {
					id = requests[who][int(arg)%n]
				} else {
					requests[who] = append(requests[who], id)
				}
				r, err := grantOf(t, fsm, &raftv1.HiLoReserve{Tag: "t", Capacity: 1 + arg%40, LastMax: arg % 7, RequestId: id})
				if err != nil {
					t.Fatal(err)
				}
				check(who, r)
				replay := false
				for _, h := range holds[who] {
					replay = replay || (h.id == r.GrantID && h.low == r.Low)
				}
				if !replay {
					holds[who] = append(holds[who], held{r.GrantID, r.Low, r.High})
				}
			case 1: // give back part of a range it holds, with any end and last
				if len(holds[who]) == 0 {
					continue
				}
				k := int(arg) % len(holds[who])
				h := holds[who][k]
				end, last := h.high-arg%2, h.low-1+arg%5
				if ok, _ := returnOf(t, fsm, "t", h.id, end, last); ok {
					if last < h.low {
						holds[who] = append(holds[who][:k], holds[who][k+1:]...)
					} else {
						holds[who][k].high = last
					}
				}
			case 2: // a stranger's return: an id nobody got
				top := fsm.HiLoMax("", "t")
				if ok, _ := returnOf(t, fsm, "t", fmt.Sprintf("x%d", arg), top, max(top-arg, 0)); ok {
					t.Fatal("a return with an id nobody was granted was accepted")
				}
			case 3:
				mustApply(t, fsm, SeedHiLoCommand, &raftv1.SeedHiLo{Tag: "t", Max: arg * 3})
			}
		}
	})
}

// A return with a request_id of its own remembers its answer: a retry of it (its first answer
// lost) answers returned again, also on a replica restored from a snapshot, where the range's
// state alone would say false; the id answers no other request; without one, a repeat is
// false as before.
func TestHiLoReturnReplaysItsAnswerByRequestID(t *testing.T) {
	f := New()
	r := mustGrantRange(t, f, "orders", "g1", 32, 0)
	ret := &raftv1.HiLoReturn{Tag: "orders", End: r.High, Last: 5, GrantId: "g1", RequestId: "ret1"}
	if got := mustApply(t, f, HiLoReturnGrantCommand, ret); got != HiLoReturned(true) {
		t.Fatalf("a return = %#v; want returned", got)
	}
	for name, f := range map[string]*FSM{"the replica": f, "a replica restored from its snapshot": mustRestore(t, snapshotBytes(t, f))} {
		if got := mustApply(t, f, HiLoReturnGrantCommand, ret); got != HiLoReturned(true) {
			t.Fatalf("the return's retry on %s = %#v; want returned, as the first attempt answered", name, got)
		}
	}
	for _, other := range []*raftv1.HiLoReturn{
		{Tag: "orders", End: r.High, Last: 4, GrantId: "g1", RequestId: "ret1"},
		{Tag: "invoices", End: r.High, Last: 5, GrantId: "g1", RequestId: "ret1"},
		{Tag: "orders", End: r.High, Last: 5, GrantId: "g1", RequestId: "g1"},
	} {
		if got := mustApply(t, f, HiLoReturnGrantCommand, other); !errors.Is(got.(error), ErrRequestIDReused) {
			t.Errorf("return %v = %#v; want ErrRequestIDReused", other, got)
		}
	}
	if ok, err := returnOf(t, f, "orders", "g1", r.High, 5); ok || err != nil {
		t.Errorf("a repeat without a request_id = %v, %v; want false, as before", ok, err)
	}
	if next := mustGrantRange(t, f, "orders", "g2", 32, 0); next.Low != 6 {
		t.Errorf("the next range starts at %d; want 6: the numbers went back once", next.Low)
	}
	long := &raftv1.HiLoReturn{Tag: "orders", End: 37, Last: 6, GrantId: "g2", RequestId: strings.Repeat("x", hilogrant.MaxIDLength+1)}
	if got := mustApply(t, f, HiLoReturnGrantCommand, long); !errors.Is(got.(error), hilogrant.ErrIDTooLong) {
		t.Errorf("a return with a request_id over the bound = %#v; want ErrIDTooLong", got)
	}
}
