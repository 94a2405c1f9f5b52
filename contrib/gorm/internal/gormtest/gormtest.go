// Package gormtest starts what the plugin's tests and ormapp's need: a real idnode node (a
// process of this repository's daemon, test/e2e/e2etest) and a private PostgreSQL server
// (test/helpers/postgres) holding the application drill's tables.
package gormtest

import (
	"context"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/test/e2e/e2etest"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
)

// Tables are the tables of the application drill and the ORM benchmark.
const Tables = `
CREATE TABLE orders   (id text   PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE invoices (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE events   (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE counters (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE serials  (id bigserial PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);`

// Env is one node and one PostgreSQL server with the tables.
type Env struct {
	Node *e2etest.Proc // nil for StartDB
	PG   *pgserver.Server
}

// Start starts both (skipping the test without PostgreSQL, failing it under CI=true) and
// creates the tables.
func Start(t *testing.T) *Env {
	t.Helper()
	env := StartDB(t)
	env.Node, _ = e2etest.StartSingle(t)
	return env
}

// StartDB is Start without the node, for a test that starts the nodes it needs itself.
func StartDB(t *testing.T) *Env {
	t.Helper()
	pg := pgserver.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := pg.Psql(ctx, Tables); err != nil {
		t.Fatalf("creating the tables: %v\n%s", err, out)
	}
	return &Env{PG: pg}
}

// Client dials the node, with opts after the tests' own, closed when the test ends.
func (e *Env) Client(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	opts = append([]client.Option{client.WithBackoff(client.Backoff{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 2})}, opts...)
	c, err := client.Dial(context.Background(), []string{e.Node.GRPCAddr}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A node the test killed answers no return of a HiLo tail: bound the wait.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

// DB opens GORM on the server, with its log off, closed when the test ends.
func (e *Env) DB(t *testing.T) *gorm.DB {
	t.Helper()
	return e.DBAs(t, "", &gorm.Config{})
}

// DBAs opens GORM on the server as application app (its connections' application_name; none
// for "") with cfg and the log off, closed when the test ends.
func (e *Env) DBAs(t *testing.T, app string, cfg *gorm.Config) *gorm.DB {
	t.Helper()
	dsn := e.PG.DSN
	if app != "" {
		dsn = e.PG.DSNFor(app)
	}
	cfg.Logger = logger.Discard
	db, err := gorm.Open(postgres.Open(dsn), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s, err := db.DB(); err == nil {
			_ = s.Close()
		}
	})
	return db
}
