package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mysqlPasswordEnv is where a MySQL password is read from when the connection string has none,
// as the mysql client reads it: kept off a command line others can see.
const mysqlPasswordEnv = "MYSQL_PWD"

// mysqlDB reads key columns in one read-only, repeatable-read transaction (MySQL's and
// MariaDB's InnoDB take the snapshot at its first read, so every table is read at the same
// moment). Table and column names reach SQL only as parameters, or quoted after the
// catalogue showed they exist.
type mysqlDB struct {
	db *sql.DB
	tx *sql.Tx
	// schema is the database the last column call found the table in: the connection's when
	// the table names none.
	schema string
}

// mysqlConfig reads a --mysql connection string: a URL, mysql://user[:password]@host[:port]/
// database[?param=value…] (port 3306 by default), or the Go driver's own DSN,
// user[:password]@tcp(host:port)/database[?param=value…]. The parameters are the driver's
// (tls=true, …). Without a password in it, MYSQL_PWD's.
func mysqlConfig(s string) (*mysql.Config, error) {
	var cfg *mysql.Config
	if strings.HasPrefix(s, "mysql://") {
		// Neither url's nor the driver's messages are passed on: they may echo the password.
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" || strings.Contains(strings.TrimPrefix(u.Path, "/"), "/") || u.Fragment != "" {
			return nil, errors.New("--mysql: want mysql://user[:password]@host[:port]/database[?param=value…]")
		}
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		// The query goes to the driver as written, so it reads the parameters itself.
		if cfg, err = mysql.ParseDSN("tcp(" + net.JoinHostPort(u.Hostname(), port) + ")/?" + u.RawQuery); err != nil {
			return nil, fmt.Errorf("--mysql: the parameters after ?: %w", err)
		}
		cfg.DBName = strings.TrimPrefix(u.Path, "/")
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	} else {
		var err error
		if cfg, err = mysql.ParseDSN(s); err != nil {
			return nil, errors.New("--mysql: neither mysql://user[:password]@host[:port]/database nor the Go driver's user[:password]@tcp(host:port)/database")
		}
	}
	if cfg.Passwd == "" {
		cfg.Passwd = os.Getenv(mysqlPasswordEnv)
	}
	// The driver logs what it also returns, to stderr; idctl prints the returned error once.
	cfg.Logger = log.New(io.Discard, "", 0)
	return cfg, nil
}

// openMySQL connects to the server cfg names and begins the transaction. Every table must be
// in a database: the connection's, or the one it names. Every read and write on the
// connection is bounded by timeout, unless the connection string sets its own: the rollback
// at the end takes no context, and must not wait on a server that stopped answering.
func openMySQL(ctx context.Context, cfg *mysql.Config, tables []adoptTable, timeout time.Duration) (keyDatabase, error) {
	for _, t := range tables {
		if t.schema == "" && cfg.DBName == "" {
			return nil, usagef("--table %s: name its database (database.table.column), or one in the --mysql connection string", t)
		}
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = timeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = timeout
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("MySQL: %w", err)
	}
	db := sql.OpenDB(conn)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("MySQL: %w", err)
	}
	return &mysqlDB{db: db, tx: tx}, nil
}

func (*mysqlDB) about() dialect {
	return dialect{name: "MySQL", names: "table names are case-sensitive as MySQL stores them",
		types: "integer keys (tinyint, smallint, mediumint, int, bigint) or text ones (char, varchar, tinytext, text, mediumtext, longtext)"}
}

// mysqlTable and mysqlColumn find t's database (the connection's when t names none) and its
// column's type. The names compare byte for byte, as PostgreSQL's do; MySQL itself compares
// column names without regard to case, so a column is found as its table spells it.
const (
	mysqlTable = `SELECT TABLE_SCHEMA FROM information_schema.TABLES
WHERE BINARY TABLE_SCHEMA = BINARY coalesce(nullif(?, ''), database()) AND BINARY TABLE_NAME = BINARY ?`
	mysqlColumn = `SELECT DATA_TYPE FROM information_schema.COLUMNS
WHERE BINARY TABLE_SCHEMA = BINARY ? AND BINARY TABLE_NAME = BINARY ? AND BINARY COLUMN_NAME = BINARY ?`
)

func (m *mysqlDB) column(ctx context.Context, t adoptTable) (columnForm, string, error) {
	err := m.tx.QueryRowContext(ctx, mysqlTable, t.schema, t.table).Scan(&m.schema)
	if errors.Is(err, sql.ErrNoRows) {
		return otherColumn, "", errNoTable
	}
	if err != nil {
		return otherColumn, "", err
	}
	var typ string
	err = m.tx.QueryRowContext(ctx, mysqlColumn, m.schema, t.table, t.column).Scan(&typ)
	if errors.Is(err, sql.ErrNoRows) {
		return otherColumn, "", errNoColumn
	}
	if err != nil {
		return otherColumn, "", err
	}
	switch typ = strings.ToLower(typ); typ {
	case "tinyint", "smallint", "mediumint", "int", "bigint":
		return integerColumn, typ, nil
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return textColumn, typ, nil
	}
	return otherColumn, typ, nil
}

// quoteMySQL quotes a name MySQL's way: in backticks, a backtick in it doubled.
func quoteMySQL(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// from and col are t's table and column quoted, the table in the database column found.
func (m *mysqlDB) from(t adoptTable) string { return quoteMySQL(m.schema) + "." + quoteMySQL(t.table) }
func (m *mysqlDB) col(t adoptTable) string  { return quoteMySQL(t.column) }

func (m *mysqlDB) largestInteger(ctx context.Context, t adoptTable) (int64, error) {
	// As text: a BIGINT UNSIGNED may hold more than an int64.
	var largest sql.NullString
	if err := m.tx.QueryRowContext(ctx, "SELECT max("+m.col(t)+") FROM "+m.from(t)).Scan(&largest); err != nil || !largest.Valid {
		return 0, err
	}
	n, err := strconv.ParseInt(largest.String, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("largest key %s is past the largest int64", shorten(largest.String))
	}
	return n, nil
}

func (m *mysqlDB) eachText(ctx context.Context, t adoptTable, add func(string)) error {
	rows, err := m.tx.QueryContext(ctx, "SELECT "+m.col(t)+" FROM "+m.from(t)+" WHERE "+m.col(t)+" IS NOT NULL")
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	var key string
	for rows.Next() {
		if err := rows.Scan(&key); err != nil {
			return err
		}
		add(key)
	}
	return rows.Err()
}

func (m *mysqlDB) close(context.Context) {
	// database/sql's Rollback takes no context: the connection's timeouts bound it.
	_ = m.tx.Rollback()
	_ = m.db.Close()
}
