package main

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
)

// output writes the JSON lines: committed rows and failed batches as they happen (unless
// quiet), the summary last. Each transaction's lines are flushed together, so a reader never
// sees half of one.
type output struct {
	mu     sync.Mutex
	w      *bufio.Writer
	enc    *json.Encoder
	quiet  bool
	errors errorCounts
}

type errorCounts struct {
	Idnode int64 `json:"idnode"`
	Unique int64 `json:"unique_violation"`
	Other  int64 `json:"other"`
}

func newOutput(w io.Writer, quiet bool) *output {
	bw := bufio.NewWriter(w)
	return &output{w: bw, enc: json.NewEncoder(bw), quiet: quiet}
}

type rowLine struct {
	Table string `json:"table"`
	ID    any    `json:"id"`
}

type errorLine struct {
	Error   string `json:"error"`
	Table   string `json:"table"`
	Message string `json:"message"`
}

type doneLine struct {
	Done          bool        `json:"done"`
	Rows          int64       `json:"rows"`
	Seconds       float64     `json:"seconds"`
	RowsPerSecond float64     `json:"rows_per_second"`
	Errors        errorCounts `json:"errors"`
}

// committed prints one line per row of a committed transaction.
func (o *output) committed(table string, ids []any) {
	if o.quiet {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		_ = o.enc.Encode(rowLine{Table: table, ID: id})
	}
	_ = o.w.Flush()
}

// failed counts a failed batch and prints its line.
func (o *output) failed(class, table string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch class {
	case classIdnode:
		o.errors.Idnode++
	case classUnique:
		o.errors.Unique++
	default:
		o.errors.Other++
	}
	if o.quiet {
		return
	}
	_ = o.enc.Encode(errorLine{Error: class, Table: table, Message: err.Error()})
	_ = o.w.Flush()
}

// done prints the summary.
func (o *output) done(rows int64, seconds float64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	rate := 0.0
	if seconds > 0 {
		rate = float64(rows) / seconds
	}
	if err := o.enc.Encode(doneLine{Done: true, Rows: rows, Seconds: seconds, RowsPerSecond: rate, Errors: o.errors}); err != nil {
		return err
	}
	return o.w.Flush()
}
