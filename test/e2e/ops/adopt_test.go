package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/postgres"
)

// The tables of the ORM drill (test/e2e/apps), as an application that has not met idnode yet
// made them: integer keys from bigserial, text keys RavenDB wrote (orders/17-A).
const adoptSchema = `
CREATE TABLE orders   (id text      PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE invoices (id bigserial PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE events   (id bigserial PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
INSERT INTO invoices (lang, worker, seq) SELECT 'sql', 0, n FROM generate_series(1, 500) n;
INSERT INTO events   (lang, worker, seq) SELECT 'sql', 0, n FROM generate_series(1, 700) n;
INSERT INTO orders   SELECT 'orders/' || n || '-' || (ARRAY['A','B'])[n % 2 + 1], 'ravendb', 0, n FROM generate_series(1, 300) n;
CREATE TABLE notes  (id text PRIMARY KEY);
INSERT INTO notes VALUES ('hello');
CREATE TABLE mixed  (id text PRIMARY KEY);
INSERT INTO mixed VALUES ('mixed/1'), ('mixed/2-A');
CREATE TABLE ledger (id numeric PRIMARY KEY);`

// adoptRows are the rows each table gets with idnode's keys after the adoption.
const adoptRows = 300

// TestAdoptRaisesCountersAboveATablesKeys moves the drill's tables onto idnode: idctl adopt
// refuses every bad mapping without raising anything, changes nothing in a dry run, then
// raises the counters, after which rows keyed by idnode's identities and HiLo ranges go in
// with no unique violation.
func TestAdoptRaisesCountersAboveATablesKeys(t *testing.T) {
	t.Parallel()
	pg := postgres.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := pg.Psql(ctx, adoptSchema); err != nil {
		t.Fatal(err)
	}
	p, ids := e2etest.StartSingle(t)
	env := []string{"IDNODE_ADDR=" + p.GRPCAddr}
	adopt := func(args ...string) []string {
		return append([]string{"adopt", "--pg", pg.DSN, "--table", "invoices.id=identity", "--table", "events.id=hilo", "--table", "orders.id=hilo"}, args...)
	}

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct{ table, reason string }{
			{"nosuch.id=identity", "table nosuch does not exist"},
			{"invoices.nope=identity", "table invoices has no column nope"},
			{"notes.id=hilo", "not an ID of the collection's forms"},
			{"mixed.id=hilo", "mixed column"},
			{"orders.id=hilo:invoices", `of the collection "orders"`},
			{"orders.id=identity", "adopt it as hilo"},
			{"ledger.id=identity", "type is numeric"},
			{`invoices; DROP TABLE invoices.id=identity`, "table invoices; DROP TABLE invoices does not exist"},
		} {
			spec, _, _ := strings.Cut(c.table, "=")
			// The good tables come first: a run that raised as it read would have raised them.
			args := []string{"adopt", "--pg", pg.DSN, "--table", "invoices.id=identity", "--table", "events.id=hilo", "--table", c.table, "--apply"}
			e2etest.WantIdctlFailure(t, 1, env, args, spec+": ", c.reason)
			wantCounters(t, ids, 0, 0, 0)
		}
		if n := countRows(t, ctx, pg, "invoices"); n != 500 {
			t.Fatalf("invoices holds %d rows after the hostile names, want 500", n)
		}
	})

	t.Run("dry run", func(t *testing.T) {
		out := e2etest.MustIdctl(t, env, adopt()...)
		for _, want := range []string{"invoices.id  identity invoices  0  500  1500", "events.id  hilo events  0  700  1700",
			"orders.id  hilo orders  0  orders/300-A  1300", "dry run: nothing changed; --apply raises 3 of 3 counters"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
				t.Errorf("the dry run does not say %q:\n%s", want, out)
			}
		}
		var report struct {
			Applied bool `json:"applied"`
			Tables  []struct {
				Table      string `json:"table"`
				LargestKey string `json:"largest_key"`
				New        int64  `json:"new"`
				Raise      bool   `json:"raise"`
			} `json:"tables"`
		}
		if err := json.Unmarshal([]byte(e2etest.MustIdctl(t, env, adopt("--json", "--margin", "10%")...)), &report); err != nil {
			t.Fatal(err)
		}
		if report.Applied || len(report.Tables) != 3 || report.Tables[2].Table != "orders.id" || report.Tables[2].LargestKey != "orders/300-A" ||
			report.Tables[2].New != 330 || !report.Tables[2].Raise {
			t.Errorf("adopt --json --margin 10%%: %+v", report)
		}
		wantCounters(t, ids, 0, 0, 0)
	})

	t.Run("apply", func(t *testing.T) {
		out := e2etest.MustIdctl(t, env, adopt("--apply")...)
		if !strings.Contains(out, "raised 3 of 3 counters") {
			t.Errorf("adopt --apply:\n%s", out)
		}
		wantCounters(t, ids, 1500, 1700, 1300)
		// Again, with a smaller margin: never lower, and say so.
		out = e2etest.MustIdctl(t, env, adopt("--apply", "--margin", "5")...)
		if !strings.Contains(out, "505 (no change: 1500 is at or above it)") || !strings.Contains(out, "raised 0 of 3 counters") {
			t.Errorf("adopt --apply --margin 5 after a margin of 1000:\n%s", out)
		}
		wantCounters(t, ids, 1500, 1700, 1300)
	})

	t.Run("rows with idnode's keys", func(t *testing.T) {
		conn, err := pgx.Connect(ctx, pg.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close(context.Background()) }()
		violations := 0
		insert := func(table string, id any, seq int) {
			_, err := conn.Exec(ctx, "INSERT INTO "+table+" (id, lang, worker, seq) VALUES ($1, 'go', 1, $2)", id, seq)
			var pe *pgconn.PgError
			switch {
			case errors.As(err, &pe) && pe.Code == "23505":
				violations++
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
		if violations != 0 {
			t.Errorf("%d unique violations among %d rows with idnode's keys", violations, 3*adoptRows)
		}
		for table, want := range map[string]int{"invoices": 500 + adoptRows, "events": 700 + adoptRows, "orders": 300 + adoptRows} {
			if n := countRows(t, ctx, pg, table); n != want {
				t.Errorf("%s holds %d rows, want %d", table, n, want)
			}
		}
	})
}

// hiloNumber is one number of a HiLo range and what its ID is printed with.
type hiloNumber struct {
	prefix, serverTag string
	n                 int64
}

// hiloNumbers takes count numbers of tag from HiLo ranges, as a client does.
func hiloNumbers(t *testing.T, ids idnodev1.IdServiceClient, tag string, count int) []hiloNumber {
	t.Helper()
	var nums []hiloNumber
	for len(nums) < count {
		r, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, tag)
		if err != nil {
			t.Fatal(err)
		}
		for n := r.GetLow(); n <= r.GetHigh() && len(nums) < count; n++ {
			nums = append(nums, hiloNumber{r.GetPrefix(), r.GetServerTag(), n})
		}
	}
	return nums
}

// wantCounters checks the identity invoices and the HiLo maxima of events and orders.
func wantCounters(t *testing.T, ids idnodev1.IdServiceClient, invoices, events, orders int64) {
	t.Helper()
	got := map[string]int64{}
	idents, err := ids.ListIdentities(e2etest.RPCCtx(t), &idnodev1.ListIdentitiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range idents.GetIdentities() {
		got["identity "+id.GetName()] = id.GetValue()
	}
	tags, err := ids.ListHiLo(e2etest.RPCCtx(t), &idnodev1.ListHiLoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range tags.GetTags() {
		got["hilo "+tag.GetTag()] = tag.GetMax()
	}
	want := map[string]int64{"identity invoices": invoices, "hilo events": events, "hilo orders": orders}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("counters %v; want %v", got, want)
		}
		delete(got, k)
	}
	for k, v := range got {
		if v != 0 {
			t.Fatalf("counter %s is %d: adopt raised a counter it was not asked to", k, v)
		}
	}
}

func countRows(t *testing.T, ctx context.Context, pg *postgres.Server, table string) int {
	t.Helper()
	out, err := pg.Psql(ctx, fmt.Sprintf("SELECT count(*) FROM %s", pgx.Identifier{table}.Sanitize()))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("count of %s: %q", table, out)
	}
	return n
}
