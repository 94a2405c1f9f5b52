package databasesql_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/faulttable"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
)

// TestFaultTable measures what a program saving rows the README's way (the keys from rowkeys,
// then one transaction) sees in each situation of docs/fault-table.md, on one three-node
// cluster, and checks the page's database/sql table against it (the error types, codes and
// reasons; the times are shown as measured and never compared). IDNODE_WRITE_FAULT_TABLE=1
// writes the table instead.
func TestFaultTable(t *testing.T) {
	pg := pgserver.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := pg.Psql(ctx, `CREATE TABLE invoices (id bigint PRIMARY KEY, worker int NOT NULL);
		CREATE TABLE orders (id text PRIMARY KEY, worker int NOT NULL);`); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cl := e2etest.StartCluster(t)
	c := faulttable.Dial(t, cl.GRPCAddrs())
	keys := rowkeys.New(c)
	table := faulttable.MeasureSaves(t, cl, faulttable.Adapter{
		Saves: []faulttable.Save{{
			Name: "`keys.Ints`/`keys.Strings` and an insert of 3 rows",
			Identities: func(ctx context.Context) error {
				nums, err := keys.Ints(ctx, "invoices", rowkeys.Identity, 3)
				if err != nil {
					return err
				}
				return insert(ctx, db, "invoices", []any{nums[0], 0, nums[1], 0, nums[2], 0})
			},
			HiLo: func(ctx context.Context) error { // orders: no save took a range of them before
				ids, err := keys.Strings(ctx, "orders", rowkeys.HiLo, 3)
				if err != nil {
					return err
				}
				return insert(ctx, db, "orders", []any{ids[0], 0, ids[1], 0, ids[2], 0})
			},
		}},
		Rows: func(ctx context.Context) (int64, error) {
			var n int64
			err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM invoices) + (SELECT count(*) FROM orders)").Scan(&n)
			return n, err
		},
		CloseClient: func(ctx context.Context) error { return c.Close(ctx) },
		KeysName:    "the `rowkeys.Source`",
		CloseKeys:   func(ctx context.Context) error { return keys.Close(ctx) },
	})
	faulttable.Check(t, "databasesql", "contrib/databasesql TestFaultTable", table)
}
