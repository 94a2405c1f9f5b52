package idnodeent_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/contrib/ent/exampledb"
	"github.com/idnode/idnode/test/helpers/rpcgate"
)

// A CreateBulk of 500 orders: while their keys are awaited (the HiLo range call held at the
// gate) no connection of the application is in a transaction; when no key can be had (the
// node killed), the bulk fails with idnode's error and writes no row.
func TestBulkAwaitsKeysOutsideTransactions(t *testing.T) {
	const app = "ent-bulk"
	gate := rpcgate.New("NextHiLo")
	ec, node, pg := setupAs(t, app, []client.Option{client.WithDialOptions(gate.DialOption())})
	ctx := ctxFor(t, 2*time.Minute)

	gate.Shut()
	t.Cleanup(gate.Open)
	saveCtx, cancel := context.WithTimeout(ctx, 10*time.Second) // its end fails the save
	defer cancel()
	builders := make([]*exampledb.OrderCreate, 500)
	for i := range builders {
		builders[i] = ec.Order.Create().SetCustomer("bulk")
	}
	saved := make(chan error, 1)
	go func() {
		_, err := ec.Order.CreateBulk(builders...).Save(saveCtx)
		saved <- err
	}()
	gate.WaitHeld(t, time.Minute)
	held, err := pg.InTransaction(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) > 0 {
		t.Errorf("while the keys were awaited, connections of the application were in a transaction: %q", held)
	}

	node.Kill9()
	gate.Open()
	select {
	case err = <-saved:
	case <-time.After(time.Minute):
		t.Fatal("the bulk create did not end within a minute of its node's death")
	}
	var kerr *rowkeys.Error
	if !errors.As(err, &kerr) {
		t.Fatalf("the bulk create with no keys to be had = %v; want a *rowkeys.Error", err)
	}
	if n, err := ec.Order.Query().Count(ctx); err != nil || n != 0 {
		t.Fatalf("the failed bulk create left %d orders (%v); want none", n, err)
	}
}
