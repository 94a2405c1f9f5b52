package metrics

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/fsm"
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
	m.IDsIssued(Identity, "", 5)
	m.IDsIssued(HiLo, "Billing", 32)
	m.HiLoRange(32)
	m.IdentityBatch(7)
	m.RaftApply(3 * time.Millisecond)
	m.NoQuorum()
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
	m.IDsIssued(Identity, "", 5)
	m.HiLoRange(32)
	m.IdentityBatch(7)
	m.RaftApply(time.Millisecond)
	m.NoQuorum()
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
	var d databaseLabels
	for i := range maxDatabaseLabels - 1 {
		if got := d.label(fmt.Sprintf("db%d", i)); got != fmt.Sprintf("db%d", i) {
			t.Fatalf("database %d labelled %q", i, got)
		}
	}
	if got := d.label("one-too-many"); got != otherDatabases {
		t.Fatalf("database past the bound labelled %q, want %q", got, otherDatabases)
	}
	if d.label("DB0") != "db0" || d.label("") != fsm.DefaultDatabase {
		t.Fatal("a known database lost its label")
	}
}
