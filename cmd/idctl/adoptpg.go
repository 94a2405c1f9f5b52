package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// postgresDB reads key columns in one read-only, repeatable-read transaction. Table and column
// names reach SQL only as parameters, or quoted (pgx.Identifier) after the catalogue showed
// they exist.
type postgresDB struct {
	conn *pgx.Conn
	tx   pgx.Tx
	// schema is the schema the last column call found the table in: the current one when the
	// table names none.
	schema string
}

// openPostgres connects to the PostgreSQL at dsn (the PG* environment when empty) and begins
// the transaction.
func openPostgres(ctx context.Context, dsn string) (keyDatabase, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		end, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbCleanupTimeout)
		defer cancel()
		_ = conn.Close(end)
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	return &postgresDB{conn: conn, tx: tx}, nil
}

func (*postgresDB) about() dialect {
	return dialect{name: "PostgreSQL", names: "names are case-sensitive as PostgreSQL stores them",
		types: "integer keys (smallint, integer, bigint) or text ones (text, varchar)"}
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

func (p *postgresDB) column(ctx context.Context, t adoptTable) (columnForm, string, error) {
	var typ *string
	err := p.tx.QueryRow(ctx, columnType, t.schema, t.table, t.column).Scan(&p.schema, &typ)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return otherColumn, "", errNoTable
	case err != nil:
		return otherColumn, "", err
	case typ == nil:
		return otherColumn, "", errNoColumn
	}
	switch *typ {
	case "int2", "int4", "int8":
		return integerColumn, *typ, nil
	case "text", "varchar":
		return textColumn, *typ, nil
	}
	return otherColumn, *typ, nil
}

// from and col are t's table and column quoted, the table in the schema column found.
func (p *postgresDB) from(t adoptTable) string { return pgx.Identifier{p.schema, t.table}.Sanitize() }
func (p *postgresDB) col(t adoptTable) string  { return pgx.Identifier{t.column}.Sanitize() }

func (p *postgresDB) largestInteger(ctx context.Context, t adoptTable) (int64, error) {
	var n *int64
	if err := p.tx.QueryRow(ctx, "SELECT max("+p.col(t)+")::int8 FROM "+p.from(t)).Scan(&n); err != nil || n == nil {
		return 0, err
	}
	return *n, nil
}

func (p *postgresDB) eachText(ctx context.Context, t adoptTable, add func(string)) error {
	rows, err := p.tx.Query(ctx, "SELECT "+p.col(t)+" FROM "+p.from(t)+" WHERE "+p.col(t)+" IS NOT NULL")
	if err != nil {
		return err
	}
	var key string
	_, err = pgx.ForEachRow(rows, []any{&key}, func() error { add(key); return nil })
	return err
}

func (p *postgresDB) close(ctx context.Context) {
	_ = p.tx.Rollback(ctx)
	_ = p.conn.Close(ctx)
}
