package idnodegorm_test

import (
	"context"
	"errors"
	"testing"

	idnodegorm "github.com/idnode/idnode/contrib/gorm"
	"github.com/idnode/idnode/contrib/gorm/internal/gormtest"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/faulttable"
)

// TestFaultTable measures what an application saving rows through GORM with the plugin sees in
// each situation of docs/fault-table.md, with db.Create and with idnodegorm.CreateInBatches, on
// one three-node cluster, and checks the page's GORM table against it (the error types, codes
// and reasons; the times are shown as measured and never compared).
// IDNODE_WRITE_FAULT_TABLE=1 writes the table instead.
func TestFaultTable(t *testing.T) {
	env := gormtest.StartDB(t)
	cl := e2etest.StartCluster(t)
	c := faulttable.Dial(t, cl.GRPCAddrs())
	db := env.DB(t)
	p := idnodegorm.New(c)
	if err := db.Use(p); err != nil {
		t.Fatal(err)
	}
	// Each save is of new rows without keys: invoices take identities, counters HiLo numbers
	// (which no save takes before the situation waiting for the first range).
	create := func(newRows func() any) func(context.Context) error {
		return func(ctx context.Context) error { return db.WithContext(ctx).Create(newRows()).Error }
	}
	inBatches := func(newRows func() any) func(context.Context) error {
		return func(ctx context.Context) error {
			return idnodegorm.CreateInBatches(db.WithContext(ctx), newRows(), 2).Error
		}
	}
	invoices := func() any { return &[]Invoice{{}, {}, {}} }
	counters := func() any { return &[]Counter{{}, {}, {}} }
	table := faulttable.MeasureSaves(t, cl, faulttable.Adapter{
		Saves: []faulttable.Save{
			{Name: "`db.Create` of 3 rows", Identities: create(invoices), HiLo: create(counters)},
			{Name: "`idnodegorm.CreateInBatches` of 3 rows in batches of 2", Identities: inBatches(invoices), HiLo: inBatches(counters)},
		},
		Rows: func(ctx context.Context) (int64, error) {
			var invoices, counters int64
			err1 := db.WithContext(ctx).Model(&Invoice{}).Count(&invoices).Error
			err2 := db.WithContext(ctx).Model(&Counter{}).Count(&counters).Error
			return invoices + counters, errors.Join(err1, err2)
		},
		CloseClient: func(ctx context.Context) error { return c.Close(ctx) },
		KeysName:    "the plugin",
		CloseKeys:   func(ctx context.Context) error { return p.Close(ctx) },
	})
	faulttable.Check(t, "gorm", "contrib/gorm TestFaultTable", table)
}
