package fsm

import (
	"errors"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func seedHiLo(t *testing.T, f *FSM, db, tag string, max int64) any {
	t.Helper()
	return mustApply(t, f, SeedHiLoCommand, &raftv1.SeedHiLo{Database: db, Tag: tag, Max: max})
}

func hiloReturn(t *testing.T, f *FSM, tag string, end, last int64) int64 {
	t.Helper()
	return mustApply(t, f, HiLoReturnCommand, &raftv1.HiLoReturn{Tag: tag, End: end, Last: last}).(int64)
}

// SeedHiLo raises Max, so the next range starts above the seed; a seed at or below Max, a
// negative one or one of an unknown database changes nothing.
func TestSeedHiLoOnlyRaises(t *testing.T) {
	f := New()
	mustApply(t, f, CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
	steps := []struct {
		name    string
		db, tag string
		max     int64
		want    any // the answer: Max afterwards, or an error
		wantMax int64
	}{
		{"seed 0 of a new tag", "", "orders", 0, int64(0), 0},
		{"raise a new tag", "", "orders", 5000, int64(5000), 5000},
		{"another spelling is the same tag", "", "Orders", 6000, int64(6000), 6000},
		{"lower changes nothing", "", "orders", 100, int64(6000), 6000},
		{"equal changes nothing", "", "orders", 6000, int64(6000), 6000},
		{"negative is refused", "", "orders", -1, ErrNegativeValue, 6000},
		{"unknown database", "shop", "orders", 7000, ErrDatabaseNotFound, 6000},
		{"another database counts on its own", "billing", "orders", 10, int64(10), 6000},
	}
	for _, s := range steps {
		got := seedHiLo(t, f, s.db, s.tag, s.max)
		if wantErr, ok := s.want.(error); ok {
			if err, _ := got.(error); !errors.Is(err, wantErr) {
				t.Errorf("%s: answered %v, want %v", s.name, got, wantErr)
			}
		} else if got != s.want {
			t.Errorf("%s: answered %v, want %v", s.name, got, s.want)
		}
		if m := f.HiLoMax("", "orders"); m != s.wantMax {
			t.Errorf("%s: Max of orders = %d, want %d", s.name, m, s.wantMax)
		}
	}
	if m := f.HiLoMax("billing", "orders"); m != 10 {
		t.Errorf("Max of billing's orders = %d, want 10", m)
	}
	if r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32}); r != (HiLoRange{Low: 6001, High: 6032}) {
		t.Errorf("range after the seeds = %+v, want 6001…6032", r)
	}
	if r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32, LastMax: 32}); r != (HiLoRange{Low: 6033, High: 6064}) {
		t.Errorf("next range = %+v, want 6033…6064", r)
	}
}

// A seed of 0, or at or below Max, creates no tag: a database's tags are the ones in use.
func TestSeedHiLoBelowMaxCreatesNoTag(t *testing.T) {
	f := New()
	seedHiLo(t, f, "", "orders", 0)
	if dbs := f.Databases(); len(dbs) != 1 || dbs[0].HiLoTags != 0 {
		t.Fatalf("after a seed of 0: %+v, want no HiLo tag", dbs)
	}
}

// A client still holding a range from before a seed cannot give its tail back below the seed:
// those numbers may have been handed out by the store the tag came from. Ranges granted after
// the seed return as always, and a snapshot keeps the guard.
func TestSeedHiLoKeepsTheReturnGuard(t *testing.T) {
	f := New()
	mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32}) // 1…32, the newest
	seedHiLo(t, f, "", "orders", 5000)
	if got := hiloReturn(t, f, "orders", 32, 5); got != 5000 {
		t.Errorf("return of a range from before the seed: Max = %d, want 5000", got)
	}
	if got := hiloReturn(t, f, "orders", 5000, 40); got != 5000 {
		t.Errorf("return of (40, 5000], which this cluster never granted: Max = %d, want 5000", got)
	}
	restored := mustRestore(t, snapshotBytes(t, f))
	if got := hiloReturn(t, restored, "orders", 5000, 40); got != 5000 {
		t.Errorf("after a snapshot, return of (40, 5000]: Max = %d, want 5000", got)
	}
	r := mustReserve(t, f, &raftv1.HiLoReserve{Tag: "orders", Capacity: 32})
	if r != (HiLoRange{Low: 5001, High: 5032}) {
		t.Fatalf("range after the seed = %+v, want 5001…5032", r)
	}
	if got := hiloReturn(t, f, "orders", 5032, 5010); got != 5010 {
		t.Errorf("return of the tail of a range granted after the seed: Max = %d, want 5010", got)
	}
}
