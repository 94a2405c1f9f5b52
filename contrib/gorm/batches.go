package idnodegorm

import (
	"errors"
	"fmt"
	"reflect"

	"gorm.io/gorm"
)

// ErrNotRegistered: CreateInBatches was given a *gorm.DB without the plugin (db.Use).
var ErrNotRegistered = errors.New("idnodegorm: the plugin is not registered with this *gorm.DB (db.Use(idnodegorm.New(c)))")

// keyedSetting is the statement setting under which CreateInBatches tells the Create
// callback of each batch which rows it keyed already.
const keyedSetting = "idnode:keyed_rows"

// CreateInBatches is db.CreateInBatches(value, batchSize) with the keys of all of value's rows
// taken (and the keys the application set checked and claimed) before GORM opens its
// transaction or writes a row: while the keys are awaited no connection is held, and when no
// key can be had no row of the batch is written, with GORM's default transaction or without
// it (SkipDefaultTransaction).
//
// GORM's own CreateInBatches runs the Create callbacks once per batch, inside the transaction
// it opened for all of them, or, under SkipDefaultTransaction, after the earlier batches were
// written; no GORM hook sees the whole slice before that. The plugin's callback can only take
// each batch's keys there: a connection idles in a transaction while a batch waits for a HiLo
// range, and a failure leaves the earlier batches written when there is no transaction.
//
// The result is what db.CreateInBatches returns; its Error, when idnode gave no key, is the
// plugin's *rowkeys.Error, as for db.Create.
func CreateInBatches(db *gorm.DB, value any, batchSize int) *gorm.DB {
	if db.Error != nil {
		return db.CreateInBatches(value, batchSize)
	}
	fail := func(err error) *gorm.DB {
		tx := db.Session(&gorm.Session{})
		_ = tx.AddError(err)
		return tx
	}
	p, ok := db.Config.Plugins[Name].(*Plugin)
	if !ok {
		return fail(ErrNotRegistered)
	}
	if batchSize < 1 {
		return fail(fmt.Errorf("idnodegorm: batch size %d: want 1 or more", batchSize))
	}
	model := db.Statement.Model
	if model == nil {
		model = value
	}
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(model); err != nil {
		return fail(err)
	}
	keyed, err := p.keyRows(db.Statement.Context, stmt.Schema, reflect.ValueOf(value), nil)
	if err != nil {
		return fail(err)
	}
	tx := db.Session(&gorm.Session{}).Set(keyedSetting, keyed).CreateInBatches(value, batchSize)
	tx.Statement.Settings.Delete(keyedSetting)
	return tx
}

// keyedRows are rows whose keys were taken or checked, by their addresses.
type keyedRows map[uintptr]struct{}

func (k keyedRows) add(row reflect.Value) {
	if row.CanAddr() {
		k[row.UnsafeAddr()] = struct{}{}
	}
}

func (k keyedRows) has(row reflect.Value) bool {
	if !row.CanAddr() {
		return false
	}
	_, ok := k[row.UnsafeAddr()]
	return ok
}
