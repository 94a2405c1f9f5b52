package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idnode/idnode/contrib/gorm/internal/gormtest"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/poll"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// Bad flags are refused before anything starts (main exits 2 on them).
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},                                     // no --dsn
		{"--dsn", "x", "--workers", "0"},       // no workers
		{"--dsn", "x", "--workers", "100000"},  // too many
		{"--dsn", "x", "--batch", "0"},         // empty batches
		{"--dsn", "x", "--duration", "0s"},     // no time
		{"--dsn", "x", "--max-rows", "0"},      // no rows
		{"--dsn", "x", "--tables", "orders,x"}, // unknown table
		{"--dsn", "x", "--tables", "orders,orders"},
		{"--dsn", "x", "--nodes", ","},
		{"--dsn", "x", "extra"},
		{"--dsn", "x", "--lang", ""},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	cfg, err := parseFlags([]string{"--dsn", "postgres://x", "--tables", "serials, counters"}, io.Discard)
	if err != nil || len(cfg.tables) != 2 || cfg.workers != 8 || cfg.batch != 1 || cfg.duration != 20*time.Second || cfg.maxRows != 200000 || cfg.lang != "go" || len(cfg.nodes) != 3 {
		t.Fatalf("defaults: %+v, %v", cfg, err)
	}
}

type line struct {
	Table   string          `json:"table"`
	ID      json.RawMessage `json:"id"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Done    bool            `json:"done"`
	Rows    int64           `json:"rows"`
	Seconds float64         `json:"seconds"`
	Rate    float64         `json:"rows_per_second"`
	Errors  map[string]int  `json:"errors"`
}

func parseLines(t *testing.T, out []byte) []line {
	t.Helper()
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 || !lines[len(lines)-1].Done {
		t.Fatalf("no done line last:\n%s", out)
	}
	return lines
}

// A run into every table stops at --max-rows, prints one line per committed row (string IDs as
// strings, integer IDs as numbers) and a done line that counts them; the tables hold exactly
// those rows.
func TestRunToMaxRows(t *testing.T) {
	env := gormtest.Start(t)
	cfg, err := parseFlags([]string{"--nodes", env.Node.GRPCAddr, "--dsn", env.PG.DSN,
		"--tables", "orders,invoices,events,counters,serials", "--workers", "4", "--batch", "3",
		"--duration", "1m", "--max-rows", "301"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(cfg, make(chan os.Signal), &out); err != nil {
		t.Fatal(err)
	}
	lines := parseLines(t, out.Bytes())
	done := lines[len(lines)-1]
	if done.Rows != 301 || done.Errors["unique_violation"] != 0 || done.Errors["other"] != 0 || done.Seconds <= 0 || done.Rate <= 0 {
		t.Fatalf("done line %+v; want 301 rows, no errors", done)
	}
	perTable := map[string]map[string]bool{}
	for _, l := range lines[:len(lines)-1] {
		if l.Error != "" {
			t.Fatalf("error line %+v", l)
		}
		if perTable[l.Table] == nil {
			perTable[l.Table] = map[string]bool{}
		}
		id := string(l.ID)
		if (l.Table == "orders") != strings.HasPrefix(id, `"orders/`) {
			t.Fatalf("table %s, id %s: want strings for orders, numbers elsewhere", l.Table, id)
		}
		if perTable[l.Table][id] {
			t.Fatalf("%s: id %s printed twice", l.Table, id)
		}
		perTable[l.Table][id] = true
	}
	total := 0
	ctx := t.Context()
	for _, table := range []string{"orders", "invoices", "events", "counters", "serials"} {
		got, err := env.PG.Psql(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE lang = 'go'", table))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint(len(perTable[table])); strings.TrimSpace(got) != want || want == "0" {
			t.Errorf("%s: %s rows stored, %s printed (want some)", table, strings.TrimSpace(got), want)
		}
		total += len(perTable[table])
	}
	if total != 301 {
		t.Errorf("%d rows printed, want 301", total)
	}
}

// SIGTERM stops the run: it prints done after the batches in flight, and --quiet prints only that.
func TestStopQuiet(t *testing.T) {
	env := gormtest.Start(t)
	cfg, err := parseFlags([]string{"--nodes", env.Node.GRPCAddr, "--dsn", env.PG.DSN,
		"--tables", "counters", "--workers", "2", "--duration", "10m", "--quiet", "--lang", "bench"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan os.Signal, 1)
	outR, outW := io.Pipe()
	ran := make(chan error, 1)
	go func() { ran <- run(cfg, stop, outW); outW.Close() }()
	// Once rows are in the table, stop.
	poll.Until(t, "rows in counters", time.Minute, 50*time.Millisecond, func() error {
		got, err := env.PG.Psql(t.Context(), "SELECT count(*) FROM counters WHERE lang = 'bench'")
		if err == nil && strings.TrimSpace(got) == "0" {
			err = errors.New("none yet")
		}
		return err
	})
	stop <- syscall.SIGTERM
	out, _ := io.ReadAll(outR)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	lines := parseLines(t, out)
	if len(lines) != 1 || lines[0].Rows < 1 {
		t.Fatalf("--quiet printed %d lines (want only done, with rows): %s", len(lines), out)
	}
	got, _ := env.PG.Psql(t.Context(), "SELECT count(*) FROM counters")
	if strings.TrimSpace(got) != fmt.Sprint(lines[0].Rows) {
		t.Errorf("%s rows stored, done says %d", strings.TrimSpace(got), lines[0].Rows)
	}
}
