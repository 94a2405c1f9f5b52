package fsm

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A margin is Add plus Percent per cent of the counter, rounded up, computed without overflow
// for any counter and percentage; one past math.MaxInt64 is refused.
func TestMarginOf(t *testing.T) {
	for _, c := range []struct {
		m    Margin
		v    int64
		want int64
		ok   bool
	}{
		{Margin{}, 500, 0, true},
		{Margin{Add: 1000}, 0, 1000, true},
		{Margin{Percent: 10}, 0, 0, true},
		{Margin{Percent: 10}, 1, 1, true}, // rounded up: a counter above 0 always skips something
		{Margin{Percent: 10}, 100, 10, true},
		{Margin{Percent: 10}, 101, 11, true},
		{Margin{Add: 5, Percent: 10}, 101, 16, true},
		{Margin{Percent: 100}, math.MaxInt64, math.MaxInt64, true},
		{Margin{Percent: 200}, math.MaxInt64 / 2, math.MaxInt64 - 1, true},
		{Margin{Percent: 201}, math.MaxInt64 / 2, 0, false},
		{Margin{Percent: math.MaxInt64}, math.MaxInt64, 0, false},
		{Margin{Add: math.MaxInt64, Percent: 1}, 1, 0, false},
		{Margin{Add: math.MaxInt64}, 0, math.MaxInt64, true},
	} {
		got, ok := c.m.of(c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("%+v.of(%d) = %d, %v; want %d, %v", c.m, c.v, got, ok, c.want, c.ok)
		}
	}
}

func marginBackup() *Backup {
	return &Backup{
		Identities: []Identity{{Database: "billing", Name: "invoices", Value: 100}, {Database: DefaultDatabase, Name: "orders", Value: 7}},
		HiLo:       []HiLoMax{{Database: DefaultDatabase, Tag: "users", Max: 3200}},
	}
}

// Ahead raises each counter by its kind's margin and says the fewest and most it skipped.
func TestBackupAhead(t *testing.T) {
	b := marginBackup()
	got, err := b.Ahead(Margin{Add: 10, Percent: 10}, Margin{Add: 640})
	if err != nil {
		t.Fatal(err)
	}
	if b.Identities[0].Value != 120 || b.Identities[1].Value != 18 || b.HiLo[0].Max != 3840 {
		t.Fatalf("after Ahead: %+v %+v; want invoices 120, orders 18, users 3840", b.Identities, b.HiLo)
	}
	want := MarginSkipped{Identities: Skipped{Min: 11, Max: 20}, HiLo: Skipped{Min: 640, Max: 640}}
	if got != want {
		t.Fatalf("Ahead answered %+v; want %+v", got, want)
	}
	if got, err := (&Backup{}).Ahead(Margin{Add: 1}, Margin{Add: 1}); err != nil || got != (MarginSkipped{}) {
		t.Fatalf("Ahead of an empty backup: %+v, %v; want nothing skipped", got, err)
	}
}

// A margin that takes a counter past math.MaxInt64 is refused naming the counter, and a
// negative one is refused; either leaves the backup as it was.
func TestBackupAheadRefuses(t *testing.T) {
	for _, c := range []struct {
		name             string
		identities, hilo Margin
		sentinel         error
		names            string
	}{
		{"identity overflow", Margin{Add: math.MaxInt64 - 99}, Margin{}, ErrCounterOverflow, `identity "invoices" of database billing`},
		{"hilo overflow after identities fit", Margin{Add: 1}, Margin{Percent: math.MaxInt64}, ErrCounterOverflow, `HiLo tag "users" of database default`},
		{"negative add", Margin{Add: -1}, Margin{}, ErrNegativeValue, "identity margin"},
		{"negative percent", Margin{}, Margin{Percent: -5}, ErrNegativeValue, "HiLo margin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := marginBackup()
			_, err := b.Ahead(c.identities, c.hilo)
			if !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.names) {
				t.Fatalf("Ahead: %v; want %v naming %s", err, c.sentinel, c.names)
			}
			if want := marginBackup(); b.Identities[0] != want.Identities[0] || b.Identities[1] != want.Identities[1] || b.HiLo[0] != want.HiLo[0] {
				t.Fatalf("a refused Ahead changed the backup: %+v %+v", b.Identities, b.HiLo)
			}
		})
	}
}
