package idnodegorm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
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

// CreateInBatches checks (and claims) the keys the application set once, before the batches,
// and does not claim the keys it took itself; it refuses a *gorm.DB without the plugin and a
// batch size below 1, writing nothing.
func TestCreateInBatchesChecksOnce(t *testing.T) {
	env := gormtest.Start(t)
	var claims atomic.Int64
	countClaims := grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if strings.HasSuffix(method, "/Claim") {
			claims.Add(1)
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	})
	db := env.DB(t)
	p := idnodegorm.New(env.Client(t, client.WithDialOptions(countClaims)), idnodegorm.WithClaims("billing"))
	if err := db.Use(p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	ctx := ctxFor(t, time.Minute)
	db = db.WithContext(ctx)

	rows := make([]*Order, 25)
	for i := range rows {
		rows[i] = &Order{Lang: "go", Seq: int64(i)}
		if i%10 == 3 {
			rows[i].ID = fmt.Sprintf("orders/by-hand-%d", i)
		}
	}
	if err := idnodegorm.CreateInBatches(db, rows, 10).Error; err != nil {
		t.Fatal(err)
	}
	if n := claims.Load(); n != 1 {
		t.Errorf("%d Claim calls for a batch of 25 rows with 3 keys set by hand; want 1", n)
	}
	for i, r := range rows {
		if r.ID == "" || (i%10 == 3) != strings.HasPrefix(r.ID, "orders/by-hand-") {
			t.Fatalf("row %d has key %q", i, r.ID)
		}
	}
	if n := count(t, db, "orders"); n != 25 {
		t.Fatalf("%d orders stored, want 25", n)
	}

	if err := idnodegorm.CreateInBatches(env.DB(t).WithContext(ctx), &[]Order{{Lang: "go"}}, 10).Error; !errors.Is(err, idnodegorm.ErrNotRegistered) {
		t.Errorf("CreateInBatches without the plugin = %v; want ErrNotRegistered", err)
	}
	if err := idnodegorm.CreateInBatches(db, &[]Order{{Lang: "go"}}, 0).Error; err == nil {
		t.Error("CreateInBatches with batch size 0 succeeded")
	}
	if n := count(t, db, "orders"); n != 25 {
		t.Fatalf("%d orders stored after the refused calls, want 25", n)
	}
}

// Under SkipDefaultTransaction, which leaves GORM's gorm:begin_transaction out, Create still
// fills the keys before GORM writes the rows: the table holds the keys the structs were given.
func TestCreateWithoutDefaultTransaction(t *testing.T) {
	env := gormtest.Start(t)
	db := env.DBAs(t, "", &gorm.Config{SkipDefaultTransaction: true})
	p := idnodegorm.New(env.Client(t))
	if err := db.Use(p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	db = db.WithContext(ctxFor(t, time.Minute))
	o := Order{Lang: "go"}
	if err := db.Create(&o).Error; err != nil || !strings.HasPrefix(o.ID, "orders/") {
		t.Fatalf("Create(Order) = %v, ID %q; want a HiLo ID", err, o.ID)
	}
	var stored []string
	if err := db.Model(&Order{}).Pluck("id", &stored).Error; err != nil || len(stored) != 1 || stored[0] != o.ID {
		t.Fatalf("orders stored: %q (%v); want the key the struct was given, %q", stored, err, o.ID)
	}
	counters := make([]Counter, 3)
	if err := db.Create(&counters).Error; err != nil || counters[0].ID < 1 || counters[2].ID <= counters[0].ID {
		t.Fatalf("Create(Counters) = %v, IDs %d, %d, %d; want HiLo numbers", err, counters[0].ID, counters[1].ID, counters[2].ID)
	}
}
