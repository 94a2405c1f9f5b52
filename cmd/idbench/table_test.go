package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func resultLine(t *testing.T, r *result) string {
	t.Helper()
	r.Kind = "result"
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTable(t *testing.T) {
	three := []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}
	lines := []string{
		resultLine(t, &result{Target: targetIdnode, Strategy: stratIdentity, Nodes: three, Concurrency: 64, OpsPerSec: 20000, IDsPerSec: 20000,
			LatencyMs: latency{P50: 2, P99: 8.5, P999: 12, Max: 20}, StoppedBy: "duration"}),
		resultLine(t, &result{Label: "etcd CAS counter", Target: targetEtcd, Strategy: stratIdentity, Endpoints: three, Concurrency: 64,
			OpsPerSec: 65, IDsPerSec: 65, LatencyMs: latency{P99: 2100}, StoppedBy: "duration",
			CAS: &casCheck{Conflicts: 12350, counterCheck: counterCheck{Successes: 650, CounterEnd: 650, Verified: true}}}),
		resultLine(t, &result{Target: targetEtcd, Strategy: stratPut, Endpoints: three, Concurrency: 64, OpsPerSec: 4000, IDsPerSec: 4000,
			Errors: 1, ErrorsByCode: map[string]int64{"Unavailable": 1}, StoppedBy: "duration"}),
		resultLine(t, &result{Target: targetIdnode, Strategy: stratIdentity, Nodes: three, Concurrency: 256, OpsPerSec: 25000, IDsPerSec: 25000}),
		resultLine(t, &result{Target: targetIdnode, Strategy: stratIdentity, Via: viaGoClient, Nodes: three, Concurrency: 64, OpsPerSec: 24000, IDsPerSec: 24000,
			LatencyMs: latency{P99: 21}, Errors: 2, ErrorsByCode: map[string]int64{"Unavailable": 2}, StoppedBy: "duration"}),
		resultLine(t, &result{Target: targetPostgres, Strategy: stratIdentity, Endpoints: three[:1], Concurrency: 64, OpsPerSec: 10000, IDsPerSec: 10000,
			StoppedBy: "duration", Sequence: &counterCheck{Successes: 100000, CounterStart: 5, CounterEnd: 100005, Verified: true}}),
		resultLine(t, &result{Target: targetIdnode, Strategy: stratServerSide, Nodes: three[:1], Concurrency: 64, Count: 1000, OpsPerSec: 6000, IDsPerSec: 6e6, StoppedBy: "cap"}),
		resultLine(t, &result{Target: targetIdnode, Strategy: stratClaim, ClaimIDs: claimNames, Nodes: three[:1], Concurrency: 8, Count: 1000, OpsPerSec: 50, IDsPerSec: 50000, StoppedBy: "ops"}),
		resultLine(t, &result{Target: targetIdnode, Strategy: stratClaim, ClaimIDs: claimNumbers, Nodes: three[:1], Concurrency: 8, Count: 10, OpsPerSec: 500, IDsPerSec: 5000, StoppedBy: "ops"}),
		resultLine(t, &result{Target: targetIdnode, Strategy: stratHiLoRange, RangeSize: 64, Nodes: three, Concurrency: 16, Count: 1, OpsPerSec: 900, IDsPerSec: 57600, StoppedBy: "duration"}),
		`{"kind":"rss","process":"idnode A","idle_kb":20480,"load_kb":61440,"load":"64-caller identity"}`,
		`{"kind":"rss","process":"idnode B","idle_kb":45056,"load_kb":51200,"load":"64-caller identity"}`,
		`{"kind":"rss","process":"etcd e0","idle_kb":30000,"load_kb":60000,"load":"64-caller Put"}`,
		"",
	}
	file := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runTable([]string{file}, nil, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| idnode identity | 64 | 3 | 20,000 | 20,000 | 2.00 | 8.50 | 12.0 | 20.0 | 0 |  |",
		"| etcd CAS counter | 64 | 3 | 65 | 65 |",
		"12,350 Txn conflicts (19.0 per ID); verified: 650 IDs = counter 0→650",
		"| etcd Put | 64 | 3 | 4,000 | 4,000 |",
		"| 1 (Unavailable 1) |",
		"| idnode server-side count=1000 | 64 | 1 | 6,000 | 6,000,000 |",
		"stopped by cap",
		"| idnode claim count=1000 | 8 | 1 | 50 | 50,000 |",
		"| idnode claim count=10 ids=numbers | 8 | 1 | 500 | 5,000 |",
		"| idnode hilo-range size=64 | 16 | 3 | 900 | 57,600 |",
		"| idnode identity via go-client | 64 | 3 | 24,000 | 24,000 |",
		"| PostgreSQL nextval | 64 | 1 | 10,000 | 10,000 |",
		"verified: 100000 IDs = sequence 5→100005",
		"| 64 | round-robin | 20,000 | 8.50 | 0 | 65 | 4,000 | 10,000 | 308× | 5.0× | 2.0× |",
		"| 64 | go-client | 24,000 | 21.0 | 2 (Unavailable 2) | 65 | 4,000 | 10,000 | 369× | 6.0× | 2.4× |",
		"| 256 | round-robin | 25,000 | 0 | 0 | – | – | – | – | – | – |",
		"| identity (go-client) p99 ≤ 20 ms, 64 callers | 21.0 ms | no |",
		"| identity (go-client) errors = 0, 64 callers | 2 (Unavailable 2) | no |",
		"| idnode A | 20.0 MB | 60.0 MB | 64-caller identity |",
		"| identities (round-robin) ≥ 100× the etcd CAS counter, 64 callers | 308× | yes |",
		"| identities (round-robin) ≥ 3× etcd raw Put ops/s, 64 callers | 5.0× | yes |",
		"| identity (round-robin) p99 ≤ 20 ms, 64 callers | 8.50 ms | yes |",
		"| identity (round-robin) errors = 0, 64 callers | 0 | yes |",
		"| identities (round-robin) at 256 callers ≥ at 64 | 25,000 vs 20,000 IDs/s | yes |",
		"| identities (go-client) ≥ 3× etcd raw Put ops/s, 64 callers | 6.0× | yes |",
		"| server-side count 1000 ≥ 5,000,000 IDs/s | 6,000,000 IDs/s | yes |",
		"| idnode RSS idle ≤ 40 MB per node (largest node) | 44.0 MB | no |",
		"| idnode RSS under the 64-caller identity load ≤ 150 MB per node (largest node) | 60.0 MB | yes |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tables lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "40,000 calls/s") {
		t.Errorf("a target without a measurement was reported:\n%s", got)
	}

	out.Reset()
	if err := runTable([]string{"--brief", "-"}, strings.NewReader(lines[2]), &out); err != nil {
		t.Fatal(err)
	}
	if want := "etcd Put, 64 callers: 4,000 calls/s, 4,000 IDs/s, p99 0 ms, 1 errors (Unavailable 1)\n"; out.String() != want {
		t.Errorf("brief = %q, want %q", out.String(), want)
	}
}

func TestTableRejectsGarbage(t *testing.T) {
	for _, in := range []string{`{"kind":"mystery"}`, `not json`} {
		if err := runTable([]string{"-"}, strings.NewReader(in), &bytes.Buffer{}); err == nil {
			t.Errorf("table accepted %q", in)
		}
	}
}

// TestTableReadsCompareRSSRecords runs bench/lib.sh's rss_record, which bench/compare.sh uses
// to write its memory samples, with a sample missing (the sampler was stopped before it wrote
// one) and one that is not a number: the results file must still parse, and the table must
// show the missing samples as missing rather than fail on the whole file.
func TestTableReadsCompareRSSRecords(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	lib, err := filepath.Abs(filepath.Join("..", "..", "bench", "lib.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := `BENCH=test; source "$1"
rss_record "idnode A" 20480 "" "64-caller identity"
rss_record "idnode B" "" 51200 "64-caller identity"
rss_record "etcd e0" 30000 "12 34" "64-caller Put"`
	records, err := exec.Command(bash, "-c", script, "bash", lib).Output()
	if err != nil {
		t.Fatalf("rss_record: %v", err)
	}
	var out bytes.Buffer
	if err := runTable([]string{"-"}, bytes.NewReader(records), &out); err != nil {
		t.Fatalf("table of\n%s: %v", records, err)
	}
	for _, want := range []string{
		"| idnode A | 20.0 MB | – | 64-caller identity |",
		"| idnode B | – | 50.0 MB | 64-caller identity |",
		"| etcd e0 | 29.3 MB | – | 64-caller Put |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, out.String())
		}
	}
}
