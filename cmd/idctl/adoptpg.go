package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgCleanupTimeout bounds ending the read-only transaction and the connection.
const pgCleanupTimeout = 5 * time.Second

// largestKey is what a table's key column holds: its largest number (0 for an empty table)
// and that key as the table holds it.
type largestKey struct {
	number int64
	key    string
}

// readLargestKeys reads every table's largest key from the PostgreSQL at dsn, in one read-only
// transaction, so every table is read at the same moment. The first table that does not exist,
// lacks its column, or holds keys not of its counter's form ends it, with a reason that names
// it. Table and column names reach SQL only as parameters, or quoted (pgx.Identifier) after
// the catalogue showed they exist.
func readLargestKeys(ctx context.Context, dsn string, tables []adoptTable, sep rune) ([]largestKey, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	defer func() {
		// The rollback and goodbye get their own bound: ctx may be over, and a server that
		// stopped answering must not keep idctl.
		end, cancel := context.WithTimeout(context.WithoutCancel(ctx), pgCleanupTimeout)
		defer cancel()
		_ = tx.Rollback(end)
		_ = conn.Close(end)
	}()
	var found []largestKey
	for _, t := range tables {
		k, err := readLargestKey(ctx, tx, t, sep)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s: PostgreSQL did not answer within --pg-timeout: %w", t, ctx.Err())
			}
			return nil, err
		}
		found = append(found, k)
	}
	return found, nil
}

// columnType finds t's schema (the current one when t names none) and its column's type:
// int2, int4, int8, text, varchar or another.
const columnType = `
SELECT n.nspname, t.typname
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = $3 AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE n.nspname = coalesce(nullif($1, ''), current_schema()) AND c.relname = $2
  AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`

func readLargestKey(ctx context.Context, tx pgx.Tx, t adoptTable, sep rune) (largestKey, error) {
	var schema string
	var typ *string
	err := tx.QueryRow(ctx, columnType, t.schema, t.table, t.column).Scan(&schema, &typ)
	if errors.Is(err, pgx.ErrNoRows) {
		return largestKey{}, fmt.Errorf("%s: table %s does not exist (names are case-sensitive as PostgreSQL stores them)", t, tableName(t))
	}
	if err != nil {
		return largestKey{}, fmt.Errorf("%s: %w", t, err)
	}
	if typ == nil {
		return largestKey{}, fmt.Errorf("%s: table %s has no column %s", t, tableName(t), t.column)
	}
	from := pgx.Identifier{schema, t.table}.Sanitize()
	col := pgx.Identifier{t.column}.Sanitize()
	switch *typ {
	case "int2", "int4", "int8":
		var n *int64
		if err := tx.QueryRow(ctx, "SELECT max("+col+")::int8 FROM "+from).Scan(&n); err != nil {
			return largestKey{}, fmt.Errorf("%s: %w", t, err)
		}
		if n == nil || *n <= 0 {
			return largestKey{}, nil
		}
		return largestKey{number: *n, key: fmt.Sprint(*n)}, nil
	case "text", "varchar":
		keys := &stringKeys{kind: t.kind, name: t.name, sep: sep}
		rows, err := tx.Query(ctx, "SELECT "+col+" FROM "+from+" WHERE "+col+" IS NOT NULL")
		if err != nil {
			return largestKey{}, fmt.Errorf("%s: %w", t, err)
		}
		var key string
		_, err = pgx.ForEachRow(rows, []any{&key}, func() error { keys.add(key); return nil })
		if err != nil {
			return largestKey{}, fmt.Errorf("%s: %w", t, err)
		}
		if err := keys.err(t); err != nil {
			return largestKey{}, err
		}
		n, key := keys.largest()
		return largestKey{number: n, key: key}, nil
	}
	return largestKey{}, fmt.Errorf("%s: the column's type is %s: adopt reads integer keys (smallint, integer, bigint) or text ones (text, varchar)", t, *typ)
}

// tableName is t's table as a reason names it: with its schema if given.
func tableName(t adoptTable) string {
	if t.schema == "" {
		return t.table
	}
	return t.schema + "." + t.table
}
