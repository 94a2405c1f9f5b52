package metrics

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/hilopool"
)

type fakeRaft struct {
	state string
	fault error
}

func (f fakeRaft) State() string          { return f.state }
func (f fakeRaft) Term() uint64           { return 3 }
func (f fakeRaft) CommitIndex() uint64    { return 42 }
func (f fakeRaft) AppliedIndex() uint64   { return 41 }
func (f fakeRaft) LastContact() time.Time { return time.Now().Add(-time.Second) }
func (f fakeRaft) StorageFault() error    { return f.fault }

// mustPools is a HiLo pool store holding 90 numbers for default/users.
func mustPools(t *testing.T) *hilopool.Store {
	t.Helper()
	s, err := hilopool.Open(filepath.Join(t.TempDir(), "hilo-pools"))
	if err != nil {
		t.Fatal(err)
	}
	users := hilopool.Key{Database: fsm.DefaultDatabase, Tag: "users"}
	if err := s.Add(users, 1, 100); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := s.Grant(users, "g", 10, 10, 0); err != nil || !ok {
		t.Fatalf("Grant: ok %v, err %v", ok, err)
	}
	return s
}

func scrape(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", rec.Code)
	}
	return rec.Body.String()
}

func TestEveryMetricIsExported(t *testing.T) {
	m := New()
	full := &cluster.StorageError{Path: "/data/raft/raft.db", Err: syscall.ENOSPC}
	m.WatchRaft(fakeRaft{state: "follower", fault: full})
	m.IDsIssued(docid.Identity.String(), "", 5)
	m.IDsIssued(docid.HiLo.String(), "Billing", 32)
	m.HiLoRange(32)
	m.IdentityBatch(7)
	m.RaftApply(context.Background(), 3*time.Millisecond)
	m.NoQuorum()
	m.WatchHiLoPools(mustPools(t))
	m.WatchClusterVersion(fsm.New())
	m.HiLoPoolGrant("", "users", 10)
	m.HiLoPoolRefill("", "users", 100)
	body := scrape(t, m.Handler())
	for _, want := range []string{
		`idnode_ids_issued_total{database="default",strategy="identity"} 5`,
		`idnode_ids_issued_total{database="billing",strategy="hilo"} 32`,
		`idnode_ids_issued_total{database="default",strategy="server-side"} 0`,
		`idnode_hilo_range_size_count 1`,
		`idnode_identity_batch_size_sum 7`,
		`idnode_raft_apply_duration_seconds_count 1`,
		`idnode_no_quorum_refusals_total 1`,
		`idnode_raft_state{state="follower"} 1`,
		`idnode_raft_state{state="leader"} 0`,
		`idnode_raft_term 3`,
		`idnode_raft_commit_index 42`,
		`idnode_raft_applied_index 41`,
		`idnode_raft_last_contact_seconds 1`,
		`idnode_storage_fault{kind="full"} 1`,
		`idnode_storage_fault{kind="failed"} 0`,
		`idnode_hilo_pool_size{database="default",tag="users"} 90`,
		`idnode_hilo_pool_ranges_total{database="default",tag="users"} 1`,
		`idnode_hilo_pool_refills_total{database="default",tag="users"} 1`,
		`idnode_hilo_pool_reserved_total{database="default",tag="users"} 100`,
		`idnode_build_info{`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// What `promtool check metrics` checks (client_golang's promlint is its code): names, units,
// suffixes and help of every metric a node exports, after each has a sample.
func TestMetricsPassPromtoolsLint(t *testing.T) {
	m := New()
	m.WatchRaft(fakeRaft{state: "leader"})
	m.IDsIssued(docid.Identity.String(), "", 5)
	m.HiLoRange(32)
	m.IdentityBatch(7)
	m.RaftApply(context.Background(), time.Millisecond)
	m.NoQuorum()
	m.WatchHiLoPools(mustPools(t))
	m.WatchClusterVersion(fsm.New())
	m.HiLoPoolGrant("", "users", 10)
	m.HiLoPoolRefill("", "users", 100)
	m.ClockOffset(-2 * time.Second)
	m.NumericClockBehind("")
	m.Backups(time.Hour).BackupFailed()
	problems, err := promlint.New(strings.NewReader(scrape(t, m.Handler()))).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

func TestServeAndStop(t *testing.T) {
	m := New()
	if _, err := m.Serve("127.0.0.1:bad", false, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
		t.Fatal("a bad address was accepted")
	}
	stop, err := m.Serve("127.0.0.1:0", false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	stop()
}

// The database label has at most maxDatabaseLabels values; later databases share "other".
func TestDatabaseLabelsAreBounded(t *testing.T) {
	m := New()
	for i := range maxDatabaseLabels - 1 {
		if got := m.database(fmt.Sprintf("db%d", i)); got != fmt.Sprintf("db%d", i) {
			t.Fatalf("database %d labelled %q", i, got)
		}
	}
	if got := m.database("one-too-many"); got != otherLabel {
		t.Fatalf("database past the bound labelled %q, want %q", got, otherLabel)
	}
	if m.database("DB0") != "db0" || m.database("") != fsm.DefaultDatabase {
		t.Fatal("a known database lost its label")
	}
}

// The pool metrics name at most maxPoolTagLabels tags; later ones share "other", in their own
// database's series.
func TestPoolTagLabelsAreBounded(t *testing.T) {
	m := New()
	for i := range maxPoolTagLabels {
		if db, tag := m.poolLabels("default", fmt.Sprintf("tag%d", i)); db != "default" || tag != fmt.Sprintf("tag%d", i) {
			t.Fatalf("tag %d labelled %q/%q", i, db, tag)
		}
	}
	if db, tag := m.poolLabels("shop", "one-too-many"); db != "shop" || tag != otherLabel {
		t.Fatalf("tag past the bound labelled %q/%q, want shop/%q", db, tag, otherLabel)
	}
	if db, tag := m.poolLabels("", "tag0"); db != "default" || tag != "tag0" {
		t.Fatalf("a known tag labelled %q/%q", db, tag)
	}
}

// The clock offset is NaN until a node measured it, then the last measurement, signed; the
// numeric refusals for a clock behind show at 0 for the default database from the start, and
// count by database.
func TestClockOffsetAndClockBehind(t *testing.T) {
	m := New()
	body := scrape(t, m.Handler())
	for _, want := range []string{"idnode_clock_offset_seconds NaN", `idnode_numeric_clock_behind_total{database="default"} 0`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics before any measurement lacks %q", want)
		}
	}
	m.ClockOffset(-1500 * time.Millisecond)
	m.NumericClockBehind("Billing")
	m.NumericClockBehind("billing")
	body = scrape(t, m.Handler())
	for _, want := range []string{"idnode_clock_offset_seconds -1.5", `idnode_numeric_clock_behind_total{database="billing"} 2`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
