// Package databasesql_test runs the README's example of keys from idnode with plain
// database/sql, and the same pattern under contention, against a real PostgreSQL.
package databasesql_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/test/e2e/e2etest"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
	"github.com/idnode/idnode/test/helpers/readmeexample"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// The README's example runs as written and prints the keys its comment promises.
func TestReadmeExample(t *testing.T) {
	pg := pgserver.ForTest(t)
	node, _ := e2etest.StartSingle(t)
	out := readmeexample.Run(t, "IDNODE_NODES="+node.GRPCAddr, "DATABASE_URL="+pg.DSN)
	if got := readmeexample.LastLine(out); got != "orders/1-A orders/2-A orders/3-A" {
		t.Fatalf("the example printed %q last, want \"orders/1-A orders/2-A orders/3-A\"\n%s", got, out)
	}
}

// Many goroutines insert batches in transactions at once, string keys (HiLo, identities) and
// integer ones (HiLo numbers, numeric IDs): no insert fails (no duplicate key), and every
// committed row is in its table.
func TestConcurrentInserts(t *testing.T) {
	pg := pgserver.ForTest(t)
	node, _ := e2etest.StartSingle(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := pg.Psql(ctx, `CREATE TABLE strs (id text PRIMARY KEY, worker int NOT NULL);
		CREATE TABLE ints (id bigint PRIMARY KEY, worker int NOT NULL);`); err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(ctx, []string{node.GRPCAddr})
	if err != nil {
		t.Fatal(err)
	}
	keys := rowkeys.New(c)
	defer func() { _, _ = keys.Close(ctx), c.Close(ctx) }()
	db, err := sql.Open("pgx", pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	const workers, rounds = 16, 16
	// Every string strategy has a form of its own, so they share a table; integers of
	// different strategies could be equal (HiLo numbers and identities both count from 1), so
	// the integer table mixes only HiLo and numeric IDs (those are above 2^22).
	strStrategies := []rowkeys.Strategy{rowkeys.HiLo, rowkeys.Identity, rowkeys.Numeric, rowkeys.ServerSide}
	intStrategies := []rowkeys.Strategy{rowkeys.HiLo, rowkeys.Numeric}
	committed := make([][2]int, workers) // rows of strs, of ints
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				n := 1 + (w+r)%5
				var args []any
				table, st := "ints", intStrategies[(r/2)%len(intStrategies)]
				if r%2 == 0 {
					table, st = "strs", strStrategies[(r/2)%len(strStrategies)]
					ids, err := keys.Strings(ctx, "rows", st, n)
					if err != nil {
						errs[w] = err
						return
					}
					for _, id := range ids {
						args = append(args, id, w)
					}
				} else {
					nums, err := keys.Ints(ctx, "rows", st, n)
					if err != nil {
						errs[w] = err
						return
					}
					for _, v := range nums {
						args = append(args, v, w)
					}
				}
				if err := insert(ctx, db, table, args); err != nil {
					errs[w] = fmt.Errorf("round %d (%s, %s): %w", r, table, st, err)
					return
				}
				committed[w][r%2] += n
			}
		})
	}
	wg.Wait()
	var want [2]int
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
		want[0] += committed[w][0]
		want[1] += committed[w][1]
	}
	for i, table := range []string{"strs", "ints"} {
		var got int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want[i] {
			t.Errorf("%s: %d rows stored, %d committed", table, got, want[i])
		}
	}
}

// insert writes one batch of (id, worker) pairs in one transaction, one INSERT of all rows.
func insert(ctx context.Context, db *sql.DB, table string, args []any) error {
	values := make([]string, len(args)/2)
	for i := range values {
		values[i] = fmt.Sprintf("($%d, $%d)", 2*i+1, 2*i+2)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+" (id, worker) VALUES "+strings.Join(values, ", "), args...); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
