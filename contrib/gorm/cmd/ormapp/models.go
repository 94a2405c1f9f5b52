package main

import (
	"fmt"
	"slices"
	"strings"
)

// The rows of the tables the application drill and the ORM benchmark create beforehand (id,
// lang, worker, seq). Each model's key says where it comes from; the application never sets
// one.

// Order is keyed by HiLo string IDs of the collection "orders": "orders/17-A".
type Order struct {
	ID     string `gorm:"primaryKey"`
	Lang   string
	Worker int
	Seq    int64
}

// Invoice is keyed by the identity "invoices": 1, 2, 3 … through Raft.
type Invoice struct {
	ID     int64 `gorm:"primaryKey;autoIncrement:false" idnode:"identity"`
	Lang   string
	Worker int
	Seq    int64
}

// Event is keyed by numeric 64-bit IDs minted under a leased worker.
type Event struct {
	ID     int64 `gorm:"primaryKey;autoIncrement:false" idnode:"numeric"`
	Lang   string
	Worker int
	Seq    int64
}

// Counter is keyed by HiLo numbers of the tag "counters".
type Counter struct {
	ID     int64 `gorm:"primaryKey;autoIncrement:false" idnode:"hilo"`
	Lang   string
	Worker int
	Seq    int64
}

// Serial is keyed by PostgreSQL's own sequence (bigserial): the benchmark's baseline.
type Serial struct {
	ID     int64 `gorm:"primaryKey;autoIncrement" idnode:"-"`
	Lang   string
	Worker int
	Seq    int64
}

// table makes the rows of one batch of one table and reads their keys back.
type table struct {
	name string
	// rows returns a pointer to a slice of n fresh rows (keys empty) for worker, numbered
	// from seq on.
	rows func(n, worker int, seq int64, lang string) any
	// ids returns the keys of the rows rows made: strings or int64s.
	ids func(rows any) []any
}

// tableOf builds a table from a constructor of one row and its key.
func tableOf[T any](name string, row func(lang string, worker int, seq int64) T, id func(*T) any) table {
	return table{
		name: name,
		rows: func(n, worker int, seq int64, lang string) any {
			rows := make([]T, n)
			for i := range rows {
				rows[i] = row(lang, worker, seq+int64(i))
			}
			return &rows
		},
		ids: func(rows any) []any {
			rs := *rows.(*[]T)
			out := make([]any, len(rs))
			for i := range rs {
				out[i] = id(&rs[i])
			}
			return out
		},
	}
}

var tables = map[string]table{
	"orders": tableOf("orders", func(l string, w int, s int64) Order { return Order{Lang: l, Worker: w, Seq: s} },
		func(r *Order) any { return r.ID }),
	"invoices": tableOf("invoices", func(l string, w int, s int64) Invoice { return Invoice{Lang: l, Worker: w, Seq: s} },
		func(r *Invoice) any { return r.ID }),
	"events": tableOf("events", func(l string, w int, s int64) Event { return Event{Lang: l, Worker: w, Seq: s} },
		func(r *Event) any { return r.ID }),
	"counters": tableOf("counters", func(l string, w int, s int64) Counter { return Counter{Lang: l, Worker: w, Seq: s} },
		func(r *Counter) any { return r.ID }),
	"serials": tableOf("serials", func(l string, w int, s int64) Serial { return Serial{Lang: l, Worker: w, Seq: s} },
		func(r *Serial) any { return r.ID }),
}

// parseTables reads --tables: known names, comma-separated, each once.
func parseTables(s string) ([]table, error) {
	var out []table
	var seen []string
	for name := range strings.SplitSeq(s, ",") {
		name = strings.TrimSpace(name)
		t, ok := tables[name]
		if !ok {
			return nil, fmt.Errorf("--tables: unknown table %q (want orders, invoices, events, counters, serials)", name)
		}
		if slices.Contains(seen, name) {
			return nil, fmt.Errorf("--tables: %q twice", name)
		}
		seen = append(seen, name)
		out = append(out, t)
	}
	return out, nil
}
