// Package idnodegorm is a GORM plugin that fills the primary key of every row GORM creates
// from an idnode cluster, the way RavenDB's session assigns an entity's ID on store: an empty
// string key gets a HiLo ID by the client's conventions ("orders/17-A"), an empty integer key a
// HiLo number (17), or the strategy the field's idnode tag names. Register it once per
// *gorm.DB with db.Use(idnodegorm.New(c)), where c is the process's one *client.Client, and
// insert batches of more rows than one INSERT with CreateInBatches(db, &rows, n), which takes
// every row's key before GORM opens a transaction or writes a row.
//
// Why keys come from where they do: docs/decisions/0036-row-keys-by-field-type.md.
package idnodegorm

import (
	"context"
	"reflect"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
)

// Name is the plugin's name (gorm.Plugin), and its callback's prefix.
const Name = "idnode"

// callbackName is the Create callback that fills keys, before GORM's own ones.
const callbackName = "idnode:assign_keys"

// Plugin fills empty primary keys on Create, and on CreateInBatches through this package's
// CreateInBatches. It is safe for any number of goroutines and *gorm.DB sessions.
type Plugin struct {
	keys       *rowkeys.Source
	collection func(reflect.Type) string
	claimOwner *string
	numeric    client.NumericOptions

	models sync.Map // *schema.Schema → cachedModel: each model's key, read once
}

// Option configures a Plugin.
type Option func(*Plugin)

// WithCollectionName replaces client.DefaultCollectionName: the collection (the HiLo tag, the
// identity's name) of a model whose idnode tag does not name one.
func WithCollectionName(name func(reflect.Type) string) Option {
	return func(p *Plugin) { p.collection = name }
}

// WithClaims makes the plugin claim, cluster-wide for owner, every key the application set
// itself before Create: a string key as it is, an integer key as "collection/N" (so the
// collection's identity skips it). A key someone holds fails the Create with reason CLAIMED.
func WithClaims(owner string) Option {
	return func(p *Plugin) { p.claimOwner = &owner }
}

// WithNumericOptions configures the numeric generator the numeric strategy starts on first use.
func WithNumericOptions(o client.NumericOptions) Option {
	return func(p *Plugin) { p.numeric = o }
}

// New returns a plugin that takes keys through c, the process's one client (so that every
// *gorm.DB shares its HiLo ranges). Close the plugin, then the client, when the program ends:
// the plugin releases its numeric worker, the client gives back the HiLo ranges' unused numbers.
func New(c *client.Client, opts ...Option) *Plugin {
	p := &Plugin{collection: client.DefaultCollectionName}
	for _, o := range opts {
		o(p)
	}
	p.keys = rowkeys.New(c, rowkeys.WithNumericOptions(p.numeric))
	return p
}

// Name is the plugin's name: gorm.Plugin.
func (p *Plugin) Name() string { return Name }

// Initialize registers the Create callback (gorm.Plugin): db.Use calls it. The callback runs
// first of all (Before("*")): before GORM opens the Create's transaction
// (gorm:begin_transaction, which GORM leaves out under SkipDefaultTransaction, so that it
// cannot be what the callback is placed by), the model's BeforeCreate hook and gorm:create.
// Waiting for keys holds no database connection, and a failure to get them leaves no
// transaction to roll back, whose own error (a context that ended in the meantime) GORM would
// join to the plugin's as text, hiding idnode's error from errors.As.
func (p *Plugin) Initialize(db *gorm.DB) error {
	return db.Callback().Create().Before("*").Register(callbackName, p.assign)
}

// Close releases the numeric worker, if the plugin leased one; Creates that need a key fail
// after it. It does not close the client.
func (p *Plugin) Close(ctx context.Context) error { return p.keys.Close(ctx) }

// assign fills the empty keys of the rows being created, all from one call for the batch, and
// checks (and claims, with WithClaims) the keys the application set, but for rows
// CreateInBatches keyed already. Its errors go to db.AddError, which makes GORM write nothing.
func (p *Plugin) assign(db *gorm.DB) {
	if db.Error != nil || db.Statement.Schema == nil {
		return
	}
	var keyed keyedRows
	if v, ok := db.Get(keyedSetting); ok {
		keyed, _ = v.(keyedRows)
	}
	if _, err := p.keyRows(db.Statement.Context, db.Statement.Schema, db.Statement.ReflectValue, keyed); err != nil {
		_ = db.AddError(err)
	}
}

// keyRows fills the empty keys of the rows of value (a struct, or a slice or array of them)
// with one take, and checks (and claims) the keys the application set, skipping the rows in
// skip. It returns the rows it keyed.
func (p *Plugin) keyRows(ctx context.Context, s *schema.Schema, value reflect.Value, skip keyedRows) (keyedRows, error) {
	m, err := p.model(s)
	if err != nil || m == nil {
		return nil, err // m == nil: no key of ours (composite, none, or the database's)
	}
	keyed := keyedRows{}
	var empty []reflect.Value
	var keptStrs []string
	var keptInts []int64
	for _, row := range rowsOf(value) {
		if skip.has(row) {
			continue
		}
		keyed.add(row)
		v, zero := m.field.ValueOf(ctx, row)
		switch {
		case zero:
			empty = append(empty, row)
		case m.str:
			keptStrs = append(keptStrs, reflect.ValueOf(v).String())
		default:
			keptInts = append(keptInts, intOf(reflect.ValueOf(v)))
		}
	}
	if len(keptStrs)+len(keptInts) > 0 {
		if err := p.keys.Keep(ctx, m.collection, p.claimOwner, keptStrs, keptInts); err != nil {
			return nil, err
		}
	}
	for len(empty) > 0 {
		take := empty[:min(len(empty), rowkeys.MaxBatch)]
		if err := p.fill(ctx, m, take); err != nil {
			return nil, err
		}
		empty = empty[len(take):]
	}
	return keyed, nil
}

// fill takes len(rows) keys at once and sets them.
func (p *Plugin) fill(ctx context.Context, m *model, rows []reflect.Value) error {
	if m.str {
		ids, err := p.keys.Strings(ctx, m.collection, m.strategy, len(rows))
		if err != nil {
			return err
		}
		for i, row := range rows {
			if err := m.field.Set(ctx, row, ids[i]); err != nil {
				return err
			}
		}
		return nil
	}
	nums, err := p.keys.Ints(ctx, m.collection, m.strategy, len(rows))
	if err != nil {
		return err
	}
	for i, row := range rows {
		if err := m.field.Set(ctx, row, nums[i]); err != nil {
			return err
		}
	}
	return nil
}

// rowsOf lists the structs being created: one, or each element of a slice or array (of structs
// or pointers to them). A map (Create with a map[string]any) has no struct to fill: none.
func rowsOf(v reflect.Value) []reflect.Value {
	v = reflect.Indirect(v)
	switch v.Kind() {
	case reflect.Struct:
		return []reflect.Value{v}
	case reflect.Slice, reflect.Array:
		rows := make([]reflect.Value, 0, v.Len())
		for i := range v.Len() {
			if row := reflect.Indirect(v.Index(i)); row.Kind() == reflect.Struct {
				rows = append(rows, row)
			}
		}
		return rows
	}
	return nil
}

// intOf is an integer field's value as int64; a uint above the int64 range is negative, which
// Keep refuses.
func intOf(v reflect.Value) int64 {
	if v.CanInt() {
		return v.Int()
	}
	return int64(v.Uint()) //nolint:gosec // wraps to negative on purpose: refused as not positive
}

// cachedModel is what the plugin read of a schema's key: the model, or why it cannot fill it.
type cachedModel struct {
	m   *model
	err error
}

// model returns what the plugin knows of a schema's key, reading it on first use.
func (p *Plugin) model(s *schema.Schema) (*model, error) {
	if v, ok := p.models.Load(s); ok {
		c := v.(cachedModel)
		return c.m, c.err
	}
	m, err := readModel(s, p.collection)
	v, _ := p.models.LoadOrStore(s, cachedModel{m, err})
	c := v.(cachedModel)
	return c.m, c.err
}
