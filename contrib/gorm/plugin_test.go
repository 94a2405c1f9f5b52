package idnodegorm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/client/rowkeys"
	idnodegorm "github.com/idnode/idnode/contrib/gorm"
	"github.com/idnode/idnode/contrib/gorm/internal/gormtest"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// The models of the drill's tables, one per strategy.
type Order struct { // HiLo string IDs of "orders"
	ID     string `gorm:"primaryKey"`
	Lang   string
	Worker int
	Seq    int64
}

type Invoice struct { // identities of "invoices"
	ID     int64 `gorm:"primaryKey;autoIncrement:false" idnode:"identity"`
	Lang   string
	Worker int
	Seq    int64
}

type Event struct { // numeric 64-bit IDs
	ID     int64 `gorm:"primaryKey;autoIncrement:false" idnode:"numeric"`
	Lang   string
	Worker int
	Seq    int64
}

type Counter struct { // HiLo numbers of "counters"; an int key called ID needs no tag
	ID     int64
	Lang   string
	Worker int
	Seq    int64
}

type Serial struct { // PostgreSQL's bigserial: the plugin keeps out
	ID     int64 `gorm:"primaryKey;autoIncrement"`
	Lang   string
	Worker int
	Seq    int64
}

// ServerOrder and IdentityOrder write to orders with the other string strategies.
type ServerOrder struct {
	ID     string `gorm:"primaryKey" idnode:"server,collection=orders"`
	Lang   string
	Worker int
	Seq    int64
}

func (ServerOrder) TableName() string { return "orders" }

type IdentityOrder struct {
	ID     string `gorm:"primaryKey" idnode:"identity,collection=orders"`
	Lang   string
	Worker int
	Seq    int64
}

func (IdentityOrder) TableName() string { return "orders" }

func setup(t *testing.T, opts ...idnodegorm.Option) (*gormtest.Env, *client.Client, *gorm.DB, *idnodegorm.Plugin) {
	t.Helper()
	env := gormtest.Start(t)
	c := env.Client(t)
	db := env.DB(t)
	p := idnodegorm.New(c, opts...)
	if err := db.Use(p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return env, c, db, p
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func count(t *testing.T, db *gorm.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := db.Table(table).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// Create and CreateInBatches fill every empty key by its field's type and tag; the keys are
// in the table as the structs hold them.
func TestCreateFillsKeys(t *testing.T) {
	_, _, db, _ := setup(t)
	ctx := ctxFor(t, time.Minute)
	db = db.WithContext(ctx)

	o := Order{Lang: "go"}
	if err := db.Create(&o).Error; err != nil || !strings.HasPrefix(o.ID, "orders/") || !strings.HasSuffix(o.ID, "-A") {
		t.Fatalf("Create(Order) = %v, ID %q; want a HiLo ID orders/N-A", err, o.ID)
	}
	inv := Invoice{Lang: "go"}
	if err := db.Create(&inv).Error; err != nil || inv.ID != 1 {
		t.Fatalf("Create(Invoice) = %v, ID %d; want the identity's first value, 1", err, inv.ID)
	}
	ev := Event{Lang: "go"}
	if err := db.Create(&ev).Error; err != nil || ev.ID < 1<<22 {
		t.Fatalf("Create(Event) = %v, ID %d; want a numeric ID (time in the high bits)", err, ev.ID)
	}
	ctr := Counter{Lang: "go"}
	if err := db.Create(&ctr).Error; err != nil || ctr.ID < 1 {
		t.Fatalf("Create(Counter) = %v, ID %d; want a HiLo number", err, ctr.ID)
	}
	ser := []Serial{{Lang: "go"}, {Lang: "go"}}
	if err := db.Create(&ser).Error; err != nil || ser[0].ID != 1 || ser[1].ID != 2 {
		t.Fatalf("Create(Serials) = %v, IDs %d, %d; want PostgreSQL's 1 and 2", err, ser[0].ID, ser[1].ID)
	}
	so := ServerOrder{Lang: "go"}
	if err := db.Create(&so).Error; err != nil || !strings.HasPrefix(so.ID, "orders/000") {
		t.Fatalf("Create(ServerOrder) = %v, ID %q; want a server-side ID", err, so.ID)
	}
	io := IdentityOrder{Lang: "go"}
	if err := db.Create(&io).Error; err != nil || io.ID != "orders/1" {
		t.Fatalf("Create(IdentityOrder) = %v, ID %q; want orders/1", err, io.ID)
	}

	// A batch: 250 rows in batches of 100, and a slice given to Create whole.
	orders := make([]*Order, 250)
	for i := range orders {
		orders[i] = &Order{Lang: "go", Seq: int64(i)}
	}
	if err := db.CreateInBatches(orders, 100).Error; err != nil {
		t.Fatal(err)
	}
	invoices := make([]Invoice, 50)
	if err := db.Create(&invoices).Error; err != nil {
		t.Fatal(err)
	}
	for i, v := range invoices {
		if v.ID != int64(2+i) {
			t.Fatalf("invoice %d of a batch has ID %d, want %d: one block of the identity", i, v.ID, 2+i)
		}
	}
	var stored []Order
	if err := db.Where("lang = 'go' AND id LIKE '%-A' AND id NOT LIKE 'orders/000%'").Find(&stored).Error; err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{o.ID: true}
	for _, r := range orders {
		want[r.ID] = true
	}
	if len(stored) != len(want) {
		t.Fatalf("%d HiLo orders stored, want %d", len(stored), len(want))
	}
	for _, r := range stored {
		if !want[r.ID] {
			t.Fatalf("stored order %q is not one the structs were given", r.ID)
		}
	}
}

// A batch takes its keys a range at a time: 2,000 rows cost a few HiLo ranges, not a call each.
func TestBatchTakesRanges(t *testing.T) {
	_, c, db, _ := setup(t)
	ctx := ctxFor(t, time.Minute)
	rows := make([]Counter, 2000)
	if err := db.WithContext(ctx).CreateInBatches(&rows, 1000).Error; err != nil {
		t.Fatal(err)
	}
	g, err := c.Generator("counters")
	if err != nil {
		t.Fatal(err)
	}
	if st := g.Stats(); st.Fetches == 0 || st.Fetches > 20 {
		t.Errorf("2000 keys from %d ranges; want a handful (ranges double under use)", st.Fetches)
	}
	seen := map[int64]bool{}
	for _, r := range rows {
		if r.ID < 1 || seen[r.ID] {
			t.Fatalf("key %d zero or repeated", r.ID)
		}
		seen[r.ID] = true
	}
	if n := count(t, db, "counters"); n != 2000 {
		t.Fatalf("%d counters stored, want 2000", n)
	}
}

// A key the application set is kept, after validation; an invalid one fails the Create and
// writes nothing. With WithClaims it is claimed: a key someone else holds fails with CLAIMED.
func TestKeptKeys(t *testing.T) {
	env, _, db, _ := setup(t)
	ctx := ctxFor(t, time.Minute)
	db = db.WithContext(ctx)
	kept := Order{ID: "orders/by-hand", Lang: "go"}
	if err := db.Create(&kept).Error; err != nil || kept.ID != "orders/by-hand" {
		t.Fatalf("Create with a key = %v, ID %q", err, kept.ID)
	}
	bad := []Order{{Lang: "go"}, {ID: "orders/", Lang: "go"}}
	err := db.Create(&bad).Error
	if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.InvalidInput {
		t.Fatalf("Create with an invalid key = %v; want INVALID_ARGUMENT, INVALID_INPUT", err)
	}
	if n := count(t, db, "orders"); n != 1 {
		t.Fatalf("%d orders stored after the refused batch, want 1", n)
	}

	claiming := env.DB(t)
	if err := claiming.Use(idnodegorm.New(env.Client(t), idnodegorm.WithClaims("billing"))); err != nil {
		t.Fatal(err)
	}
	claiming = claiming.WithContext(ctx)
	if err := claiming.Create(&Invoice{ID: 1000, Lang: "go"}).Error; err != nil {
		t.Fatalf("Create of invoice 1000 with claims: %v", err)
	}
	if err := claiming.Create(&Order{ID: "orders/claimed", Lang: "go"}).Error; err != nil {
		t.Fatal(err)
	}
	err = claiming.Create(&Order{ID: "Orders/CLAIMED", Lang: "go"}).Error // claims compare case-insensitively
	var kerr *rowkeys.Error
	if reason.Of(err) != reason.Claimed || !errors.As(err, &kerr) {
		t.Fatalf("Create of a claimed key = %v; want a *rowkeys.Error with reason CLAIMED", err)
	}
	if n := count(t, db, "orders"); n != 2 {
		t.Fatalf("%d orders stored, want 2 (the claimed key's row refused)", n)
	}
}

// Many goroutines creating rows of every kind at once, singly and in batches: every Create
// succeeds (no duplicate key), and every row acknowledged is in its table.
func TestConcurrentCreates(t *testing.T) {
	_, _, db, _ := setup(t)
	ctx := ctxFor(t, 3*time.Minute)
	db = db.WithContext(ctx)
	const workers, rounds = 32, 12
	acked := map[string]*[workers]int64{"orders": {}, "invoices": {}, "events": {}, "counters": {}}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				n := 1 + (w+r)%7
				var rows any
				var table string
				switch r % 4 {
				case 0:
					rows, table = make([]Order, n), "orders"
				case 1:
					rows, table = make([]Invoice, n), "invoices"
				case 2:
					rows, table = make([]Event, n), "events"
				default:
					rows, table = make([]Counter, n), "counters"
				}
				if err := db.CreateInBatches(ptrTo(rows), 3).Error; err != nil {
					errs[w] = fmt.Errorf("round %d (%s): %w", r, table, err)
					return
				}
				acked[table][w] += int64(n)
			}
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
	}
	for table, per := range acked {
		var want int64
		for _, n := range per {
			want += n
		}
		if got := count(t, db, table); got != want {
			t.Errorf("%s: %d rows stored, %d acknowledged", table, got, want)
		}
	}
}

// ptrTo returns a pointer to a slice held in an interface, as GORM wants for a batch.
func ptrTo(rows any) any {
	switch r := rows.(type) {
	case []Order:
		return &r
	case []Invoice:
		return &r
	case []Event:
		return &r
	case []Counter:
		return &r
	}
	panic("unknown rows")
}

// A cluster that does not answer fails the Create with GORM's error, which wraps the plugin's
// (*rowkeys.Error) and the client's (NodesFailedError, DEADLINE_EXCEEDED once the caller's
// deadline ends it); a closed client fails it with client.ErrClosed. No row is written either
// way.
func TestUnreachableAndClosed(t *testing.T) {
	env, c, db, _ := setup(t)
	ctx := ctxFor(t, time.Minute)
	if err := db.WithContext(ctx).Create(&Counter{}).Error; err != nil {
		t.Fatal(err)
	}
	env.Node.Kill9()
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	err := db.WithContext(short).Create(&[]Invoice{{}, {}}).Error
	var kerr *rowkeys.Error
	var nodes *client.NodesFailedError
	if !errors.As(err, &kerr) || !errors.As(err, &nodes) || status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Create with the node down = %v; want a *rowkeys.Error wrapping NodesFailedError, DEADLINE_EXCEEDED (the caller's deadline ended it)", err)
	}
	if n := count(t, db, "invoices"); n != 0 {
		t.Fatalf("%d invoices stored with the node down, want 0", n)
	}
	closeCtx, cancelClose := context.WithTimeout(ctx, time.Second)
	defer cancelClose()
	if err := c.Close(closeCtx); err != nil {
		t.Errorf("Close with the node down = %v; want nil (a gap is not an error)", err)
	}
	if g, err := c.Generator("counters"); err != nil || g.Stats().Unreturned == 0 {
		t.Errorf("after Close with the node down, the counters generator (%v) counts no number not given back; want its HiLo tail counted as a gap", err)
	}
	err = db.WithContext(ctx).Create(&Order{}).Error
	if !errors.Is(err, client.ErrClosed) || !errors.As(err, &kerr) {
		t.Fatalf("Create after the client closed = %v; want client.ErrClosed inside a *rowkeys.Error", err)
	}
	if n := count(t, db, "orders"); n != 0 {
		t.Fatalf("%d orders stored after the client closed, want 0", n)
	}
}

// Closing the client gives back the unused rest of the HiLo range: a new client's first key
// follows the last one used.
func TestCloseReturnsTails(t *testing.T) {
	env, c, db, _ := setup(t)
	ctx := ctxFor(t, time.Minute)
	rows := make([]Counter, 5)
	if err := db.WithContext(ctx).Create(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	g, err := env.Client(t).Generator("counters")
	if err != nil {
		t.Fatal(err)
	}
	next, err := g.NextNumbers(ctx, 1)
	if err != nil || next[0] != rows[4].ID+1 {
		t.Fatalf("after Close at %d, the next client's first number is %v, %v; want %d", rows[4].ID, next, err, rows[4].ID+1)
	}
}

// Model errors: a key type the plugin cannot fill, an unknown strategy, a server-side integer.
func TestModelErrors(t *testing.T) {
	_, _, db, _ := setup(t)
	type Float struct {
		ID float64 `gorm:"primaryKey"`
	}
	type Unknown struct {
		ID string `gorm:"primaryKey" idnode:"guid"`
	}
	type ServerInt struct {
		ID int64 `gorm:"primaryKey" idnode:"server"`
	}
	for _, m := range []any{&Float{}, &Unknown{}, &ServerInt{}} {
		err := db.Create(m).Error
		if err == nil || !strings.Contains(err.Error(), "idnodegorm") {
			t.Errorf("Create(%T) = %v, want the plugin's refusal", m, err)
		}
	}
}
