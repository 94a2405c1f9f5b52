package idnodegorm_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	idnodegorm "github.com/idnode/idnode/contrib/gorm"
	"github.com/idnode/idnode/contrib/gorm/internal/gormtest"
	"github.com/idnode/idnode/test/helpers/rpcgate"
)

// A batch of more rows than its batch size takes every key before GORM opens its transaction
// or writes a row, with GORM's default transaction and without it: while the keys are awaited
// (the HiLo range call held at the gate) no connection of the application is in a
// transaction and no row is written; when no key can be had (the node killed), the batch fails
// with idnode's error and writes nothing.
func TestBatchesTakeKeysBeforeWriting(t *testing.T) {
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprintf("SkipDefaultTransaction=%v", skip), func(t *testing.T) {
			env := gormtest.Start(t)
			gate := rpcgate.New("NextHiLo")
			c := env.Client(t, client.WithDialOptions(gate.DialOption()))
			app := fmt.Sprintf("gorm-batches-%v", skip)
			db := env.DBAs(t, app, &gorm.Config{SkipDefaultTransaction: skip})
			p := idnodegorm.New(c)
			if err := db.Use(p); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close(context.Background()) })
			ctx := ctxFor(t, 2*time.Minute)
			// A range in hand, as in a running application: the batch's first keys come from
			// it, the rest wait for the next range.
			if err := db.WithContext(ctx).Create(&Counter{Lang: "warm"}).Error; err != nil {
				t.Fatal(err)
			}

			gate.Shut()
			t.Cleanup(gate.Open)
			saveCtx, cancel := context.WithTimeout(ctx, 10*time.Second) // its end fails the save
			defer cancel()
			rows := make([]Counter, 500)
			saved := make(chan error, 1)
			go func() { saved <- idnodegorm.CreateInBatches(db.WithContext(saveCtx), &rows, 10).Error }()
			gate.WaitHeld(t, time.Minute)
			held, err := env.PG.InTransaction(ctx, app)
			if err != nil {
				t.Fatal(err)
			}
			if len(held) > 0 {
				t.Errorf("while the keys were awaited, connections of the application were in a transaction: %q", held)
			}

			env.Node.Kill9()
			gate.Open()
			select {
			case err = <-saved:
			case <-time.After(time.Minute):
				t.Fatal("the batch did not end within a minute of its node's death")
			}
			var kerr *rowkeys.Error
			if !errors.As(err, &kerr) {
				t.Fatalf("the batch with no keys to be had = %v; want a *rowkeys.Error", err)
			}
			if n := count(t, db.WithContext(ctx), "counters"); n != 1 {
				t.Fatalf("the failed batch wrote %d of its rows; want none (1 row in the table, the first Create's)", n-1)
			}
		})
	}
}
