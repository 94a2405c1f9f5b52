package idnodeent_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	idnodeent "github.com/idnode/idnode/contrib/ent"
	"github.com/idnode/idnode/contrib/ent/exampledb"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// setup starts a node and a private PostgreSQL, creates the example schema, and returns an ent
// client whose orders take HiLo IDs and invoices identities.
func setup(t *testing.T, opts ...idnodeent.Option) (*exampledb.Client, *e2etest.Proc) {
	t.Helper()
	ec, node, _ := setupAs(t, "", nil, opts...)
	return ec, node
}

// setupAs is setup with the database connections named app (application_name; none for "")
// and the idnode client dialled with copts; it returns the PostgreSQL server too.
func setupAs(t *testing.T, app string, copts []client.Option, opts ...idnodeent.Option) (*exampledb.Client, *e2etest.Proc, *pgserver.Server) {
	t.Helper()
	pg := pgserver.ForTest(t)
	node, _ := e2etest.StartSingle(t)
	copts = append([]client.Option{client.WithBackoff(client.Backoff{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 2})}, copts...)
	c, err := client.Dial(context.Background(), []string{node.GRPCAddr}, copts...)
	if err != nil {
		t.Fatal(err)
	}
	keys := rowkeys.New(c)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = keys.Close(ctx)
		_ = c.Close(ctx)
	})
	dsn := pg.DSN
	if app != "" {
		dsn = pg.DSNFor(app)
	}
	return exampleClient(t, dsn, keys, opts...), node, pg
}

// exampleClient opens ent on the database at dsn, closed when the test ends, with the hook on
// both entities (orders take HiLo IDs, invoices identities), and creates the schema.
func exampleClient(t *testing.T, dsn string, keys *rowkeys.Source, opts ...idnodeent.Option) *exampledb.Client {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	ec := exampledb.NewClient(exampledb.Driver(entsql.OpenDB("postgres", db)))
	t.Cleanup(func() { _ = ec.Close() })
	ec.Order.Use(idnodeent.Hook(keys, opts...))
	ec.Invoice.Use(idnodeent.Hook(keys, append(opts, idnodeent.WithStrategy(rowkeys.Identity))...))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ec.Schema.Create(ctx); err != nil {
		t.Fatal(err)
	}
	return ec
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Creates get their IDs from the hook, singly and in bulk; an ID set by hand is kept after
// validation, and an invalid one fails the create with nothing written.
func TestCreateSetsIDs(t *testing.T) {
	ec, _ := setup(t)
	ctx := ctxFor(t, time.Minute)
	o, err := ec.Order.Create().SetCustomer("ayende").Save(ctx)
	if err != nil || o.ID != "orders/1-A" {
		t.Fatalf("create order = %v, %v; want ID orders/1-A", o, err)
	}
	inv, err := ec.Invoice.Create().SetCustomer("ayende").Save(ctx)
	if err != nil || inv.ID != 1 {
		t.Fatalf("create invoice = %v, %v; want ID 1", inv, err)
	}
	builders := make([]*exampledb.InvoiceCreate, 40)
	for i := range builders {
		builders[i] = ec.Invoice.Create().SetCustomer(fmt.Sprint(i))
	}
	bulk, err := ec.Invoice.CreateBulk(builders...).Save(ctx)
	if err != nil || len(bulk) != 40 {
		t.Fatalf("bulk create = %d, %v", len(bulk), err)
	}
	for i, b := range bulk {
		if b.ID != int64(2+i) {
			t.Fatalf("bulk invoice %d has ID %d, want %d", i, b.ID, 2+i)
		}
	}
	kept, err := ec.Order.Create().SetID("orders/by-hand").SetCustomer("x").Save(ctx)
	if err != nil || kept.ID != "orders/by-hand" {
		t.Fatalf("create with an ID = %v, %v", kept, err)
	}
	_, err = ec.Order.Create().SetID("orders/").SetCustomer("x").Save(ctx)
	if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.InvalidInput {
		t.Fatalf("create with an invalid ID = %v; want INVALID_ARGUMENT, INVALID_INPUT", err)
	}
	if n, err := ec.Order.Query().Count(ctx); err != nil || n != 2 {
		t.Fatalf("%d orders stored, %v; want 2", n, err)
	}
}

// With claims, an ID set by hand is claimed: the same ID again fails with CLAIMED, and a
// claimed invoice number is skipped by the identity.
func TestClaims(t *testing.T) {
	ec, _ := setup(t, idnodeent.WithClaims("billing"))
	ctx := ctxFor(t, time.Minute)
	if _, err := ec.Invoice.Create().SetID(1).SetCustomer("x").Save(ctx); err != nil {
		t.Fatal(err)
	}
	if inv, err := ec.Invoice.Create().SetCustomer("y").Save(ctx); err != nil || inv.ID != 2 {
		t.Fatalf("the identity after claiming 1 gave %v, %v; want 2", inv, err)
	}
	if _, err := ec.Order.Create().SetID("orders/claimed").SetCustomer("x").Save(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := ec.Order.Create().SetID("orders/claimed").SetCustomer("x").Save(ctx)
	var kerr *rowkeys.Error
	if reason.Of(err) != reason.Claimed || !errors.As(err, &kerr) {
		t.Fatalf("a claimed ID again = %v; want a *rowkeys.Error with reason CLAIMED", err)
	}
}

// Many goroutines creating at once: no create fails, every acknowledged entity is stored.
func TestConcurrentCreates(t *testing.T) {
	ec, _ := setup(t)
	ctx := ctxFor(t, 2*time.Minute)
	const workers, each = 24, 15
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				var err error
				if i%2 == 0 {
					_, err = ec.Order.Create().SetCustomer("c").Save(ctx)
				} else {
					_, err = ec.Invoice.Create().SetCustomer("c").Save(ctx)
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
	}
	orders, err1 := ec.Order.Query().Count(ctx)
	invoices, err2 := ec.Invoice.Query().Count(ctx)
	if err := errors.Join(err1, err2); err != nil || orders != workers*8 || invoices != workers*7 {
		t.Fatalf("%d orders and %d invoices stored, %v; want %d and %d", orders, invoices, err, workers*8, workers*7)
	}
}

// A cluster that does not answer fails the create with the hook's error, idnode's inside, and
// writes nothing.
func TestUnreachable(t *testing.T) {
	ec, node := setup(t)
	ctx := ctxFor(t, time.Minute)
	node.Kill9()
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := ec.Invoice.Create().SetCustomer("x").Save(short)
	var kerr *rowkeys.Error
	var nodes *client.NodesFailedError
	if !errors.As(err, &kerr) || !errors.As(err, &nodes) || status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("create with the node down = %v; want a *rowkeys.Error wrapping NodesFailedError, DEADLINE_EXCEEDED (the caller's deadline ended it)", err)
	}
	if n, err := ec.Invoice.Query().Count(ctx); err != nil || n != 0 {
		t.Fatalf("%d invoices stored with the node down, %v", n, err)
	}
	if !strings.Contains(err.Error(), "invoices") {
		t.Errorf("error %q does not name the collection", err)
	}
}
