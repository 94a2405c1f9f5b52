//go:build linux

package main

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idnode/idnode/test/helpers/postgres"
)

// TestE2EPostgres runs the sequence workload against a private PostgreSQL server, when Debian's
// postgresql package is installed (bench/compare.sh installs it).
func TestE2EPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	dsn := postgres.ForTest(t).DSN

	res, code, stderr := idbench(t, "--target", "postgres", "--dsn", dsn, "--concurrency", "8", "--duration", "1s", "--progress=false", "--prefix", "t")
	if res == nil || code != 0 {
		t.Fatalf("nextval: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
	c := res.Sequence
	if c == nil || !c.Verified || res.Ops <= 0 || res.IDs != res.Ops || res.Errors != 0 || c.Successes != res.Ops || c.CounterStart != 0 || c.CounterEnd != res.Ops {
		t.Fatalf("nextval: %d ops, %d errors %v, check %+v; want a verified sequence 0→ops", res.Ops, res.Errors, res.ErrorsByCode, c)
	}
	// Again on the same sequence: the check counts from where it stood.
	first := c.CounterEnd
	res, code, stderr = idbench(t, "--target", "postgres", "--dsn", dsn, "--concurrency", "4", "--ops", "30", "--progress=false", "--prefix", "t")
	if res == nil || code != 0 || res.Sequence == nil || !res.Sequence.Verified || res.Sequence.CounterStart != first || res.Sequence.CounterEnd != first+30 {
		t.Fatalf("nextval again: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
	// A name that needs quoting names that sequence, not another one or a syntax error.
	odd := `Odd'Name"Seq`
	res, code, stderr = idbench(t, "--target", "postgres", "--dsn", dsn, "--concurrency", "2", "--ops", "10", "--progress=false", "--prefix", odd)
	if res == nil || code != 0 || res.Sequence == nil || !res.Sequence.Verified || res.Sequence.CounterEnd != 10 {
		t.Fatalf("nextval on %q: exit %d, result %+v, stderr:\n%s", odd, code, res, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), serveTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var names []string
	rows, _ := conn.Query(ctx, "SELECT sequencename FROM pg_sequences ORDER BY 1")
	if names, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{odd, "t"}) {
		t.Errorf("sequences %q, want %q and t", names, odd)
	}
}
