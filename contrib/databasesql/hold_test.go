package databasesql_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/test/e2e/e2etest"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
	"github.com/idnode/idnode/test/helpers/rpcgate"
)

// The README's pattern, keys first and then one transaction, for 500 rows: while the keys are
// awaited (the HiLo range call held at the gate) no connection of the program is in a
// transaction; when no key can be had (the node killed), the take fails with a *rowkeys.Error
// and no row is written.
func TestKeysAwaitedOutsideTransactions(t *testing.T) {
	const app = "databasesql-keys"
	pg := pgserver.ForTest(t)
	node, _ := e2etest.StartSingle(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := pg.Psql(ctx, `CREATE TABLE strs (id text PRIMARY KEY, worker int NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	gate := rpcgate.New("NextHiLo")
	c, err := client.Dial(ctx, []string{node.GRPCAddr}, client.WithDialOptions(gate.DialOption()))
	if err != nil {
		t.Fatal(err)
	}
	keys := rowkeys.New(c)
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // the node is dead by then
		defer cancel()
		_, _ = keys.Close(closeCtx), c.Close(closeCtx)
	}()
	db, err := sql.Open("pgx", pg.DSNFor(app))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	gate.Shut()
	defer gate.Open()
	saveCtx, cancelSave := context.WithTimeout(ctx, 10*time.Second) // its end fails the take
	defer cancelSave()
	saved := make(chan error, 1)
	go func() {
		ids, err := keys.Strings(saveCtx, "rows", rowkeys.HiLo, 500)
		if err != nil {
			saved <- err
			return
		}
		args := make([]any, 0, 2*len(ids))
		for _, id := range ids {
			args = append(args, id, 0)
		}
		saved <- insert(saveCtx, db, "strs", args)
	}()
	gate.WaitHeld(t, time.Minute)
	held, err := pg.InTransaction(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) > 0 {
		t.Errorf("while the keys were awaited, connections of the program were in a transaction: %q", held)
	}

	node.Kill9()
	gate.Open()
	select {
	case err = <-saved:
	case <-time.After(time.Minute):
		t.Fatal("the insert did not end within a minute of its node's death")
	}
	var kerr *rowkeys.Error
	if !errors.As(err, &kerr) {
		t.Fatalf("the insert with no keys to be had = %v; want a *rowkeys.Error", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM strs").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the failed insert left %d rows (%v); want none", n, err)
	}
}
