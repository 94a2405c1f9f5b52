package ops

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/mariadb"
)

// The drill's tables as TestAdoptRaisesCountersAboveATablesKeys makes them, in MySQL's words:
// AUTO_INCREMENT keys, text keys RavenDB wrote (orders/17-A), and the tables adopt refuses.
const adoptMySQLSchema = `
CREATE TABLE orders   (id varchar(64) PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE invoices (id bigint AUTO_INCREMENT PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE events   (id int unsigned AUTO_INCREMENT PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
INSERT INTO invoices (lang, worker, seq) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) SELECT 'sql', 0, i FROM n;
INSERT INTO events   (lang, worker, seq) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700) SELECT 'sql', 0, i FROM n;
INSERT INTO orders WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
  SELECT concat('orders/', i, '-', IF(i % 2 = 0, 'A', 'B')), 'ravendb', 0, i FROM n;
CREATE TABLE notes  (id text NOT NULL);
INSERT INTO notes VALUES ('hello');
CREATE TABLE mixed  (id varchar(64) PRIMARY KEY);
INSERT INTO mixed VALUES ('mixed/1'), ('mixed/2-A');
CREATE TABLE ledger (id decimal(20, 0) PRIMARY KEY);
CREATE TABLE huge   (id bigint unsigned PRIMARY KEY);
INSERT INTO huge VALUES (18446744073709551615);`

// TestAdoptRaisesCountersAboveMySQLKeys is the PostgreSQL drill's adoption against a real
// MariaDB: every bad mapping refused with nothing raised, a dry run that changes nothing, the
// raise, and rows keyed by idnode's identities and HiLo ranges going in without a duplicate.
func TestAdoptRaisesCountersAboveMySQLKeys(t *testing.T) {
	t.Parallel()
	my := mariadb.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := my.SQL(ctx, adoptMySQLSchema); err != nil {
		t.Fatal(err)
	}
	p, ids := e2etest.StartSingle(t)
	// The password reaches idctl as an operator's would, in MYSQL_PWD, not in the URL.
	url := strings.Replace(my.URL, ":"+mariadb.Password+"@", "@", 1)
	env := []string{"IDNODE_ADDR=" + p.GRPCAddr, "MYSQL_PWD=" + mariadb.Password}
	adopt := func(args ...string) []string {
		return append([]string{"adopt", "--mysql", url, "--table", "invoices.id=identity", "--table", "events.id=hilo", "--table", "orders.id=hilo"}, args...)
	}

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct{ table, reason string }{
			{"nosuch.id=identity", "table nosuch does not exist"},
			{"Invoices.id=identity", "table Invoices does not exist (table names are case-sensitive"},
			{"other.invoices.id=identity", "table other.invoices does not exist"},
			{"invoices.nope=identity", "table invoices has no column nope"},
			{"invoices.ID=identity", "table invoices has no column ID"},
			{"notes.id=hilo", "not an ID of the collection's forms"},
			{"mixed.id=hilo", "mixed column"},
			{"orders.id=hilo:invoices", `of the collection "orders"`},
			{"orders.id=identity", "adopt it as hilo"},
			{"ledger.id=identity", "type is decimal"},
			{"huge.id=identity", "largest key 18446744073709551615 is past the largest int64"},
			{"invoices`; DROP TABLE invoices; --.id=identity", "table invoices`; DROP TABLE invoices; -- does not exist"},
		} {
			spec, _, _ := strings.Cut(c.table, "=")
			// The good tables come first: a run that raised as it read would have raised them.
			args := []string{"adopt", "--mysql", url, "--table", "invoices.id=identity", "--table", "events.id=hilo", "--table", c.table, "--apply"}
			e2etest.WantIdctlFailure(t, 1, env, args, spec+": ", c.reason)
			wantCounters(t, ids, 0, 0, 0)
		}
		if n := countMySQLRows(t, ctx, my, "invoices"); n != 500 {
			t.Fatalf("invoices holds %d rows after the hostile names, want 500", n)
		}
		// A wrong password is MySQL's refusal, and the cluster is not asked.
		e2etest.WantIdctlFailure(t, 1, []string{"IDNODE_ADDR=" + p.GRPCAddr, "MYSQL_PWD=wrong"}, adopt(), "MySQL: ", "Access denied")
		wantCounters(t, ids, 0, 0, 0)
	})

	t.Run("dry run", func(t *testing.T) {
		// The database named with the table reads the same table.
		out := e2etest.MustIdctl(t, env, "adopt", "--mysql", url, "--table", mariadb.Database+".invoices.id=identity:invoices",
			"--table", "events.id=hilo", "--table", "orders.id=hilo")
		for _, want := range []string{mariadb.Database + ".invoices.id  identity invoices  0  500  1500", "events.id  hilo events  0  700  1700",
			"orders.id  hilo orders  0  orders/300-A  1300", "dry run: nothing changed; --apply raises 3 of 3 counters"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
				t.Errorf("the dry run does not say %q:\n%s", want, out)
			}
		}
		wantCounters(t, ids, 0, 0, 0)
	})

	t.Run("apply", func(t *testing.T) {
		// The driver's own DSN form, password and all, reads the same tables.
		out := e2etest.MustIdctl(t, []string{"IDNODE_ADDR=" + p.GRPCAddr}, "adopt", "--mysql", my.DSN, "--table", "invoices.id=identity",
			"--table", "events.id=hilo", "--table", "orders.id=hilo", "--apply")
		if !strings.Contains(out, "raised 3 of 3 counters") {
			t.Errorf("adopt --apply:\n%s", out)
		}
		wantCounters(t, ids, 1500, 1700, 1300)
		out = e2etest.MustIdctl(t, env, adopt("--apply", "--margin", "5")...)
		if !strings.Contains(out, "505 (no change: 1500 is at or above it)") || !strings.Contains(out, "raised 0 of 3 counters") {
			t.Errorf("adopt --apply --margin 5 after a margin of 1000:\n%s", out)
		}
		wantCounters(t, ids, 1500, 1700, 1300)
	})

	t.Run("rows with idnode's keys", func(t *testing.T) {
		db, err := sql.Open("mysql", my.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = db.Close() }()
		duplicates := 0
		insert := func(table string, id any, seq int) {
			_, err := db.ExecContext(ctx, "INSERT INTO "+table+" (id, lang, worker, seq) VALUES (?, 'go', 1, ?)", id, seq)
			var me *mysql.MySQLError
			switch {
			case errors.As(err, &me) && me.Number == 1062: // ER_DUP_ENTRY
				duplicates++
			case err != nil:
				t.Fatalf("insert into %s: %v", table, err)
			}
		}
		resp, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "invoices|", Count: adoptRows})
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range resp.GetIds() {
			n, err := strconv.ParseInt(strings.TrimPrefix(id, "invoices/"), 10, 64)
			if err != nil {
				t.Fatalf("identity %q", id)
			}
			insert("invoices", n, i)
		}
		for _, tag := range []string{"events", "orders"} {
			for i, n := range hiloNumbers(t, ids, tag, adoptRows) {
				if tag == "orders" {
					insert(tag, docid.HiLoID(n.prefix, n.n, n.serverTag), i)
				} else {
					insert(tag, n.n, i)
				}
			}
		}
		if duplicates != 0 {
			t.Errorf("%d duplicate keys among %d rows with idnode's keys", duplicates, 3*adoptRows)
		}
		for table, want := range map[string]int{"invoices": 500 + adoptRows, "events": 700 + adoptRows, "orders": 300 + adoptRows} {
			if n := countMySQLRows(t, ctx, my, table); n != want {
				t.Errorf("%s holds %d rows, want %d", table, n, want)
			}
		}
	})
}

func countMySQLRows(t *testing.T, ctx context.Context, my *mariadb.Server, table string) int {
	t.Helper()
	out, err := my.SQL(ctx, "SELECT count(*) FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("count of %s: %q", table, out)
	}
	return n
}
