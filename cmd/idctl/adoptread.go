package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// dbCleanupTimeout bounds ending the read-only transaction and the connection.
const dbCleanupTimeout = 5 * time.Second

// keyDatabase is a database adopt reads key columns from, PostgreSQL or MySQL, inside one
// read-only transaction that its open function began, so every table is read at the same
// moment. Each answers for one table at a time; the refusals are worded once, by
// readLargestKeys, the same for every database.
type keyDatabase interface {
	// column is the form of t's column and its type as the database names it, or errNoTable
	// or errNoColumn when the catalogue has no such table or column.
	column(ctx context.Context, t adoptTable) (columnForm, string, error)
	// largestInteger is the largest value of t's integer column, 0 when none is above 0.
	largestInteger(ctx context.Context, t adoptTable) (int64, error)
	// eachText calls add with each key of t's text column that is not NULL.
	eachText(ctx context.Context, t adoptTable, add func(string)) error
	// close ends the transaction and the connection.
	close(ctx context.Context)
	// about is what the refusals say of the database.
	about() dialect
}

// columnForm is how adopt reads a key column.
type columnForm int

const (
	otherColumn   columnForm = iota // a type adopt does not read
	integerColumn                   // the largest value is the largest key
	textColumn                      // keys read one by one, by the collection's conventions
)

// dialect is what refusals say of a database: its name, how it compares names, and the
// column types adopt reads from it.
type dialect struct {
	name, names, types string
}

// largestKey is what a table's key column holds: its largest number (0 for an empty table)
// and that key as the table holds it.
type largestKey struct {
	number int64
	key    string
}

// readLargestKeys reads every table's largest key from db, then closes it. The first table that
// does not exist, lacks its column, or holds keys not of its counter's form ends it, with a
// reason that names it.
func readLargestKeys(ctx context.Context, db keyDatabase, tables []adoptTable, sep rune) ([]largestKey, error) {
	defer func() {
		// The rollback and goodbye get their own bound: ctx may be over, and a server that
		// stopped answering must not keep idctl.
		end, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbCleanupTimeout)
		defer cancel()
		db.close(end)
	}()
	var found []largestKey
	for _, t := range tables {
		k, err := readLargestKey(ctx, db, t, sep)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s: %s did not answer within --read-timeout: %w", t, db.about().name, ctx.Err())
			}
			return nil, err
		}
		found = append(found, k)
	}
	return found, nil
}

func readLargestKey(ctx context.Context, db keyDatabase, t adoptTable, sep rune) (largestKey, error) {
	d := db.about()
	form, typ, err := db.column(ctx, t)
	switch {
	case errors.Is(err, errNoTable):
		return largestKey{}, fmt.Errorf("%s: table %s does not exist (%s)", t, tableName(t), d.names)
	case errors.Is(err, errNoColumn):
		return largestKey{}, fmt.Errorf("%s: table %s has no column %s", t, tableName(t), t.column)
	case err != nil:
		return largestKey{}, fmt.Errorf("%s: %w", t, err)
	}
	switch form {
	case integerColumn:
		n, err := db.largestInteger(ctx, t)
		if err != nil || n <= 0 {
			return largestKey{}, wrapTable(t, err)
		}
		return largestKey{number: n, key: fmt.Sprint(n)}, nil
	case textColumn:
		keys := &stringKeys{kind: t.kind, name: t.name, sep: sep}
		if err := db.eachText(ctx, t, keys.add); err != nil {
			return largestKey{}, wrapTable(t, err)
		}
		if err := keys.err(t); err != nil {
			return largestKey{}, err
		}
		n, key := keys.largest()
		return largestKey{number: n, key: key}, nil
	}
	return largestKey{}, fmt.Errorf("%s: the column's type is %s: adopt reads %s", t, typ, d.types)
}

// wrapTable names t in err, or is nil.
func wrapTable(t adoptTable, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", t, err)
}

// tableName is t's table as a reason names it: with its schema if given.
func tableName(t adoptTable) string {
	if t.schema == "" {
		return t.table
	}
	return t.schema + "." + t.table
}
