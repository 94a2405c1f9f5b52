package idnodeent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/faulttable"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
)

// TestFaultTable measures what an application saving entities through ent with the hook sees in
// each situation of docs/fault-table.md, on one three-node cluster, and checks the page's ent
// table against it (the error types, codes and reasons; the times are shown as measured and
// never compared). IDNODE_WRITE_FAULT_TABLE=1 writes the table instead.
func TestFaultTable(t *testing.T) {
	pg := pgserver.ForTest(t)
	cl := e2etest.StartCluster(t)
	c := faulttable.Dial(t, cl.GRPCAddrs())
	keys := rowkeys.New(c)
	ec := exampleClient(t, pg.DSN, keys)
	table := faulttable.MeasureSaves(t, cl, faulttable.Adapter{
		Saves: []faulttable.Save{{
			Name: "`Create().Save` of 1 entity",
			Identities: func(ctx context.Context) error {
				_, err := ec.Invoice.Create().SetCustomer("fault-table").Save(ctx)
				return err
			},
			HiLo: func(ctx context.Context) error { // orders: no save took a range of them before
				_, err := ec.Order.Create().SetCustomer("fault-table").Save(ctx)
				return err
			},
		}},
		Rows: func(ctx context.Context) (int64, error) {
			invoices, err1 := ec.Invoice.Query().Count(ctx)
			orders, err2 := ec.Order.Query().Count(ctx)
			return int64(invoices + orders), errors.Join(err1, err2)
		},
		CloseClient: func(ctx context.Context) error { return c.Close(ctx) },
		KeysName:    "the `rowkeys.Source`",
		CloseKeys:   func(ctx context.Context) error { return keys.Close(ctx) },
	})
	faulttable.Check(t, "ent", "contrib/ent TestFaultTable", table)
}
