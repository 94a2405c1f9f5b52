package clients

// Fiscal series against real processes: the HTTP/JSON API of a follower and the
// idctl commands on a three-node cluster through a leader's crash; journals kept across a
// restart and rebuilt when series.db is lost; and an entry edited on disk named by
// VerifySeries.

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// TestSeriesEndToEnd creates a yearly series with idctl, issues through a follower's
// HTTP/JSON API and through idctl on another node (retries answering the same number), voids
// a number, reads the export, the gaps and the verification, then kills the leader: the new
// leader continues the numbering with no gap and its journal verifies.
func TestSeriesEndToEnd(t *testing.T) {
	t.Parallel()
	httpAddrs := map[string]string{}
	for _, tag := range e2etest.ClusterTags {
		httpAddrs[tag] = net.JoinHostPort("127.0.0.1", fmt.Sprint(loopback.FreePort(t)))
	}
	c := e2etest.StartClusterWith(t, func(tag string) e2etest.NodeOpts { return e2etest.NodeOpts{HTTPAddr: httpAddrs[tag]} })
	all := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(c.Nodes...)}

	if got := e2etest.MustIdctl(t, all, "series", "create", "INV", "--format", "INV-{year}-{n:06}", "--period", "year"); got != "created series INV: INV-{year}-{n:06}, period year, gapless\n" {
		t.Fatalf("series create = %q", got)
	}
	leader := c.Leader()
	followers := c.Others(leader)
	viaHTTP, viaIdctl := followers[0], followers[1]

	issue := `{"requestId":"doc-1","documentHash":"ab12","fields":[{"key":"customer","value":"ACME"}]}`
	url := "http://" + httpAddrs[viaHTTP] + "/v1/series/INV:issue"
	// Each call below that is safe to repeat (a read, or a write with its request id) is sent
	// again after a refusal for want of a leader, as a client would: the nodes may hold an
	// election under load.
	code, got := e2etest.HTTPDoRetrying(t, "POST", url, issue)
	entry, _ := got["entry"].(map[string]any)
	period := fmt.Sprint(entry["period"])
	first := "INV-" + period + "-000001"
	if code != 200 || entry["id"] != first || entry["seq"] != "1" || entry["kind"] != "SERIES_ENTRY_KIND_ISSUED" || entry["documentHash"] != "ab12" || len(period) != 4 {
		t.Fatalf("POST %s via follower %s = %d %v; want entry 1, INV-<year>-000001", url, viaHTTP, code, got)
	}
	if code, again := e2etest.HTTPDoRetrying(t, "POST", url, issue); code != 200 || fmt.Sprint(again["entry"]) != fmt.Sprint(entry) {
		t.Errorf("the same request_id again = %d %v; want the same entry %v", code, again, entry)
	}

	on := []string{"IDNODE_ADDR=" + c.Node(viaIdctl).GRPCAddr}
	second := "INV-" + period + "-000002"
	for range 2 { // the second time a retry: the same number
		if got := e2etest.MustIdctlRetrying(t, on, "series", "issue", "INV", "--request-id", "doc-2", "--document-hash", "cd34", "--field", "amount=12.50"); got != second+"\n" {
			t.Fatalf("series issue doc-2 via %s = %q, want %s", viaIdctl, got, second)
		}
	}
	if got := e2etest.MustIdctlRetrying(t, on, "series", "void", "INV", "1", "--period", period, "--reason", "customer cancelled", "--correcting", "CN-1", "--request-id", "void-1"); got != "voided "+first+" (entry 3)\n" {
		t.Fatalf("series void 1 = %q", got)
	}

	rows, err := csv.NewReader(strings.NewReader(e2etest.MustIdctlRetrying(t, all, "series", "export", "INV", "--as", "csv"))).ReadAll()
	if err != nil {
		t.Fatalf("series export --as csv: %v", err)
	}
	header := []string{"seq", "kind", "period", "number", "id", "time", "request_id", "document_hash", "fields", "actor", "reason", "correcting", "prev_hash", "hash"}
	if len(rows) != 4 || !slices.Equal(rows[0], header) {
		t.Fatalf("series export: %d rows, header %q; want the header and 3 entries", len(rows), rows[0])
	}
	wantRows := [][]string{{"1", "issued", first, "doc-1", "customer=ACME", ""}, {"2", "issued", second, "doc-2", "amount=12.50", ""}, {"3", "voided", first, "", "", "customer cancelled"}}
	for i, w := range wantRows {
		r := rows[i+1]
		if r[0] != w[0] || r[1] != w[1] || r[4] != w[2] || (w[3] != "" && r[6] != w[3]) || r[8] != w[4] || r[10] != w[5] || r[13] == "" || (i > 0 && r[12] != rows[i][13]) {
			t.Errorf("export row %d = %q; want seq %s, %s %s, chained to the row before", i+1, r, w[0], w[1], w[2])
		}
	}
	if gaps := e2etest.MustIdctlRetrying(t, all, "series", "gaps", "INV"); !strings.Contains(gaps, first) || !strings.Contains(gaps, "customer cancelled") || !strings.Contains(gaps, "CN-1") || strings.Contains(gaps, second) {
		t.Errorf("series gaps:\n%s\nwant the void of %s with its reason and correcting document", gaps, first)
	}
	if got := e2etest.MustIdctlRetrying(t, all, "series", "verify", "INV"); got != "series INV verifies: 3 entries, 2 issued, 1 voided\n" {
		t.Errorf("series verify = %q", got)
	}

	c.Node(leader).Kill9()
	survivors := c.Others(leader)
	newLeader := c.Leader(survivors...)
	if !slices.Contains(survivors, newLeader) {
		t.Fatalf("after killing %s the leader is %s", leader, newLeader)
	}
	surviving := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(c.Node(survivors[0]), c.Node(survivors[1]))}
	third := "INV-" + period + "-000003"
	// The two survivors may hold another election under load: the calls that follow are retried
	// on a refusal (the issue with its request id, which answers the number its first try made).
	if got := e2etest.MustIdctlRetrying(t, surviving, "series", "issue", "INV", "--request-id", "doc-3", "--document-hash", "ef56"); got != third+"\n" {
		t.Errorf("series issue after the leader's crash = %q, want %s: the numbering continues with no gap", got, third)
	}
	onNew := []string{"IDNODE_ADDR=" + c.Node(newLeader).GRPCAddr}
	if got := e2etest.MustIdctlRetrying(t, onNew, "series", "verify", "INV"); got != "series INV verifies: 4 entries, 3 issued, 1 voided\n" {
		t.Errorf("series verify on the new leader %s = %q", newLeader, got)
	}
	if list := e2etest.MustIdctlRetrying(t, onNew, "series", "list"); !strings.Contains(list, "INV-{year}-{n:06}") || !strings.Contains(list, period) {
		t.Errorf("series list on the new leader:\n%s", list)
	}
}

// TestSeriesJournalSurvivesRestartAndLoss restarts one follower (its journal is kept) and
// restarts the other without its series.db (it rebuilds it from the Raft log: the nodes take
// no snapshot this early); then each in turn is made the leader, where Journal reads, and its
// journal must be the old leader's, entry by entry.
func TestSeriesJournalSurvivesRestartAndLoss(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	leader := c.Leader()
	kept, lost := c.Others(leader)[0], c.Others(leader)[1]
	viaLeader := idnodev1.NewSeriesServiceClient(c.Conns[leader])
	createOrders(t, viaLeader)
	issueOrders(t, viaLeader, 1, 20)
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.VoidResponse, error) {
		return viaLeader.Void(ctx, &idnodev1.VoidRequest{Series: "ord", Number: 21, Reason: "form spoiled", RequestId: "skip-21"})
	}); err != nil {
		t.Fatalf("Void of the next number: %v", err)
	}

	c.Node(kept).Stop()
	c.Node(kept).Restart()
	c.Node(lost).Stop()
	seriesDB := filepath.Join(c.Node(lost).DataDir, "raft", "series.db")
	if err := os.Remove(seriesDB); err != nil {
		t.Fatalf("removing %s: %v", seriesDB, err)
	}
	c.Node(lost).Restart()
	c.WaitServing(kept, lost)
	// More entries, through the restarted nodes, once both are back.
	issueOrders(t, idnodev1.NewSeriesServiceClient(c.Conns[lost]), 22, 26)
	issueOrders(t, idnodev1.NewSeriesServiceClient(c.Conns[kept]), 27, 30)

	want := seriesJournal(t, c, leader, "ord")
	if len(want) != 20+5+1+5+1+4+1 { // issues, voids of every 4th, the skip
		t.Fatalf("the journal on %s has %d entries", leader, len(want))
	}
	if _, err := os.Stat(seriesDB); err != nil {
		t.Errorf("node %s did not write series.db again: %v", lost, err)
	}
	leadsWithJournal(t, c, lost, "ord", want)
	leadsWithJournal(t, c, kept, "ord", want)
}

// createOrders creates the journaled series "ord", sent again with its request ID after a
// refusal while the cluster elects a leader, as a client does.
func createOrders(t *testing.T, client idnodev1.SeriesServiceClient) {
	t.Helper()
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.CreateSeriesResponse, error) {
		return client.CreateSeries(ctx, &idnodev1.CreateSeriesRequest{Name: "ord", Format: "ORD-{n:05}",
			Policy: idnodev1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED, RequestId: "create-ord"})
	}); err != nil {
		t.Fatalf("CreateSeries ord: %v", err)
	}
}

// issueOrders issues doc-from … doc-to in series "ord", one call each, and voids every 4th.
// A call refused while the cluster elects (the restarts here, on a busy machine) is sent
// again with its request ID, as a client does: the series answers a retry with the entry the
// first attempt made, if it made one.
func issueOrders(t *testing.T, client idnodev1.SeriesServiceClient, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		var resp *idnodev1.IssueResponse
		err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) (err error) {
			resp, err = client.Issue(e2etest.RPCCtx(t), &idnodev1.IssueRequest{Series: "ord", RequestId: fmt.Sprintf("doc-%d", i), DocumentHash: fmt.Sprintf("%04x", i)})
			return err
		})
		if err != nil {
			t.Fatalf("Issue(doc-%d): %v", i, err)
		}
		if i%4 == 0 {
			err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) error {
				_, err := client.Void(e2etest.RPCCtx(t), &idnodev1.VoidRequest{Series: "ord", Number: resp.GetEntry().GetNumber(), Reason: "wrong customer", RequestId: fmt.Sprintf("void-%d", i)})
				return err
			})
			if err != nil {
				t.Fatalf("Void(%s): %v", resp.GetEntry().GetId(), err)
			}
		}
	}
}

// leadsWithJournal makes node tag the leader, where Journal reads, and fails unless its
// journal of series is want, entry by entry, and verifies.
func leadsWithJournal(t *testing.T, c *e2etest.Cluster, tag, series string, want []*idnodev1.SeriesEntry) {
	t.Helper()
	c.MakeLeader(tag)
	got := seriesJournal(t, c, tag, series)
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || !proto.Equal(got[i], want[i]) {
			t.Fatalf("node %s: entry %d of %s differs:\n got  %v\n want %v", tag, i+1, series, at(got, i), at(want, i))
		}
	}
	// A read, asked again after a refusal for want of a leader, as a client would.
	v, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.VerifySeriesResponse, error) {
		return idnodev1.NewSeriesServiceClient(c.Conns[tag]).VerifySeries(ctx, &idnodev1.VerifySeriesRequest{Series: series})
	})
	if err != nil || !v.GetOk() || v.GetEntries() != uint64(len(want)) {
		t.Errorf("VerifySeries(%s) on %s = %v, %v", series, tag, v, err)
	}
}

// TestSeriesJournalRebuiltFromASnapshot loses a follower's series.db after the nodes took a
// snapshot (every 16 entries here): the node rebuilds its journal from that snapshot, which
// raft restores at the start, and then the log after it. Led by that node, the journal must
// be the old leader's, entry by entry.
func TestSeriesJournalRebuiltFromASnapshot(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t, "--raft-snapshot-threshold", "16", "--raft-snapshot-interval", "1s")
	leader := c.Leader()
	lost := c.Others(leader)[0]
	viaLeader := idnodev1.NewSeriesServiceClient(c.Conns[leader])
	createOrders(t, viaLeader)
	issueOrders(t, viaLeader, 1, 8)
	st, err := c.Admin[lost].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
	if err != nil || st.GetSelf() != lost {
		t.Fatalf("Status of %s: %v, %v", lost, st, err)
	}
	issueOrders(t, viaLeader, 9, 40) // 40 entries more: a snapshot past the ones above must follow
	dir := c.Node(lost).DataDir
	e2etest.Eventually(t, e2etest.LoadTimeout, lost+" snapshots past index "+fmt.Sprint(st.GetAppliedIndex()), func() error {
		if got := newestSnapshotIndex(t, dir); got < st.GetAppliedIndex() {
			return fmt.Errorf("newest snapshot at index %d", got)
		}
		return nil
	})

	c.Node(lost).Stop()
	seriesDB := filepath.Join(dir, "raft", "series.db")
	if err := os.Remove(seriesDB); err != nil {
		t.Fatalf("removing %s: %v", seriesDB, err)
	}
	c.Node(lost).Restart()
	c.WaitServing(lost)
	issueOrders(t, idnodev1.NewSeriesServiceClient(c.Conns[lost]), 41, 44)
	want := seriesJournal(t, c, leader, "ord")
	if len(want) != 44+11 { // issues, voids of every 4th
		t.Fatalf("the journal on %s has %d entries", leader, len(want))
	}
	leadsWithJournal(t, c, lost, "ord", want)
}

// newestSnapshotIndex is the highest Raft index of the snapshots in a node's data dir (0: none).
func newestSnapshotIndex(t *testing.T, dataDir string) uint64 {
	t.Helper()
	metas, err := filepath.Glob(filepath.Join(dataDir, "raft", "snapshots", "*", "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var newest uint64
	for _, m := range metas {
		data, err := os.ReadFile(m)
		if err != nil {
			continue // a snapshot raft is writing or reaping right now
		}
		var meta struct{ Index uint64 }
		if json.Unmarshal(data, &meta) == nil {
			newest = max(newest, meta.Index)
		}
	}
	return newest
}

func at(entries []*idnodev1.SeriesEntry, i int) *idnodev1.SeriesEntry {
	if i < len(entries) {
		return entries[i]
	}
	return nil
}

// seriesJournal reads a series' whole journal through node via (the leader reads it).
func seriesJournal(t *testing.T, c *e2etest.Cluster, via, series string) []*idnodev1.SeriesEntry {
	t.Helper()
	return journalVia(t, idnodev1.NewSeriesServiceClient(c.Conns[via]), series)
}

// journalVia reads a series' whole journal through client. The read is asked again from the
// start after a refusal for want of a leader (a restart or a transfer here), as a client would.
func journalVia(t *testing.T, client idnodev1.SeriesServiceClient, series string) []*idnodev1.SeriesEntry {
	t.Helper()
	out, err := e2etest.Retried(func(ctx context.Context) ([]*idnodev1.SeriesEntry, error) {
		stream, err := client.Journal(ctx, &idnodev1.JournalRequest{Series: series})
		if err != nil {
			return nil, err
		}
		var out []*idnodev1.SeriesEntry
		for {
			e, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	})
	if err != nil {
		t.Fatalf("Journal(%s): %v", series, err)
	}
	return out
}

// swapDocument edits entry seq of series (its folded name, in database default) in a stopped
// node's series.db as a forger would: the document_hash changed to another document's, the
// entry re-marshalled as the node writes it, its stored hash left as it was. wantID is the
// number the entry must hold, so the edit is known to hit the entry meant.
func swapDocument(t *testing.T, dataDir, series string, seq byte, wantID string) {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(dataDir, "raft", "series.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		entries := tx.Bucket([]byte("series")).Bucket([]byte("default\x00" + series)).Bucket([]byte("entries"))
		key := []byte{0, 0, 0, 0, 0, 0, 0, seq}
		var e raftv1.SeriesEntry
		if err := proto.Unmarshal(entries.Get(key), &e); err != nil {
			return err
		}
		if e.GetSeq() != uint64(seq) || e.GetId() != wantID {
			return fmt.Errorf("entry at key %d is %v; want %s", seq, &e, wantID)
		}
		e.DocumentHash = []byte{0xbb, 0x22} // the invoice swapped for another document
		v, err := proto.MarshalOptions{Deterministic: true}.Marshal(&e)
		if err != nil {
			return err
		}
		return entries.Put(key, v)
	})
	if err = errors.Join(err, db.Close()); err != nil {
		t.Fatalf("editing series.db: %v", err)
	}
}

// TestSeriesTamperedEntryIsNamed issues numbers on a node, stops it, changes one entry's
// document_hash in series.db (re-marshalled as the node writes it, its stored hash left as
// it was), and starts it again: VerifySeries, and idctl's verify, name that entry.
func TestSeriesTamperedEntryIsNamed(t *testing.T) {
	t.Parallel()
	p := e2etest.StartNode(t, e2etest.NodeOpts{})
	p.WaitServing(e2etest.ServeTimeout)
	client := idnodev1.NewSeriesServiceClient(e2etest.DialConn(t, p.GRPCAddr))
	if _, err := client.CreateSeries(e2etest.RPCCtx(t), &idnodev1.CreateSeriesRequest{Name: "INV", Format: "INV-{n:04}"}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := client.Issue(e2etest.RPCCtx(t), &idnodev1.IssueRequest{Series: "INV", RequestId: fmt.Sprintf("doc-%d", i), DocumentHash: "aa11"}); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := client.VerifySeries(e2etest.RPCCtx(t), &idnodev1.VerifySeriesRequest{Series: "INV"}); err != nil || !v.GetOk() {
		t.Fatalf("VerifySeries before the edit = %v, %v", v, err)
	}
	p.Stop()

	const edited = 3
	swapDocument(t, p.DataDir, "inv", edited, "INV-0003")

	p.Restart()
	p.WaitServing(e2etest.ServeTimeout)
	v, err := client.VerifySeries(e2etest.RPCCtx(t), &idnodev1.VerifySeriesRequest{Series: "INV"})
	if err != nil || v.GetOk() || v.GetBreakSeq() != edited || v.GetBreakReason() == "" {
		t.Fatalf("VerifySeries after editing entry %d = %v, %v; want not ok, break_seq %d with a reason", edited, v, err, edited)
	}
	t.Logf("VerifySeries: break at entry %d: %s", v.GetBreakSeq(), v.GetBreakReason())
	e2etest.WantIdctlFailure(t, 1, []string{"IDNODE_ADDR=" + p.GRPCAddr}, []string{"series", "verify", "INV"},
		"series INV does not verify", fmt.Sprintf("entry %d", edited))
}
