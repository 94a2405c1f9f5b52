package clients

// The web console (package console) in a real browser: Debian's chromium, headless,
// driven with chromedp, against a three-node cluster of real processes. Screenshots of each
// page go to the artefacts directory (e2etest.Artefacts).

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/hashicorp/raft"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/tlsconfig"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/headless"
	"github.com/idnode/idnode/test/helpers/poll"
)

const (
	consolePoll = 100 * time.Millisecond // reading the page
	// consoleFailover is how long the page may take to show the new leader after a kill -9
	// of the old one: an election (about a second here) plus the page's refresh (1 s).
	consoleFailover = 10 * time.Second
	// consoleLoad bounds the wait for a page of the console to show what it read, well within
	// the browser's session (headless.SessionTimeout), so that a page that never does leaves
	// time to read what it shows instead. It lets a call the console gave up on (api.js,
	// CALL_TIMEOUT_MS) be read again, twice.
	consoleLoad = 45 * time.Second
)

// pageSays is what the elements of the page with these ids show, for a test that waited in
// vain for something else: its alert (#problem) says what the page's last call met. Its reads
// are bounded (consoleFailover), so that a page that hangs cannot hang the report of it too.
func pageSays(tab context.Context, ids ...string) string {
	ctx, cancel := context.WithTimeout(tab, consoleFailover)
	defer cancel()
	var says []string
	for _, id := range ids {
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
			`(() => { const e = document.getElementById(%q); return !e ? "(no such element)" : e.hidden ? "(hidden)" : e.textContent; })()`, id)))
		if err != nil {
			text = fmt.Sprintf("(unread: %v)", err)
		}
		says = append(says, fmt.Sprintf("#%s %q", id, text))
	}
	return strings.Join(says, ", ")
}

// screenshot writes the whole page as name.png to the artefacts directory.
func screenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	headless.Screenshot(t, tab, filepath.Join(e2etest.Artefacts(t), name+".png"))
}

// shownLeader is the leader the console page shows (#leader's data-leader: "" while there is
// none), or an error while the page has not shown one yet.
func shownLeader(tab context.Context) (string, error) {
	attr, err := chromedp.Run(tab, chromedp.AttributeValue(chromedp.CSS("#leader"), "data-leader"))
	if err != nil {
		return "", err
	}
	if !attr.Exists {
		return "", errors.New("the page shows no leader yet")
	}
	return attr.Value, nil
}

// shownCounter is the value the console's counters table shows for name, or an error while
// it shows no such row.
func shownCounter(tab context.Context, name string) (string, error) {
	value, err := chromedp.Run(tab, chromedp.Evaluate[string](fmt.Sprintf(
		`(() => { const r = [...document.querySelectorAll("#counter-table tbody tr")].find((r) => r.dataset.name === %q);
		  return r ? r.cells[1].textContent : ""; })()`, name)))
	if err == nil && value == "" {
		err = fmt.Errorf("no row for %s", name)
	}
	return value, err
}

// listedCounter is a counter's value as ListIdentities gives it (the leader's, linearizable),
// asked via node via with the metadata md (a credential) again while an election refuses it,
// as a client would a read.
func listedCounter(t *testing.T, c *e2etest.Cluster, via, name string, md ...string) int64 {
	t.Helper()
	resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ListIdentitiesResponse, error) {
		return c.Ids[via].ListIdentities(metadata.AppendToOutgoingContext(ctx, md...), &idnodev1.ListIdentitiesRequest{Prefix: name})
	})
	if err != nil {
		t.Fatalf("ListIdentities(%s) via %s: %v", name, via, err)
	}
	for _, id := range resp.GetIdentities() {
		if id.GetName() == name {
			return id.GetValue()
		}
	}
	t.Fatalf("ListIdentities(%s) via %s has no %s: %v", name, via, name, resp.GetIdentities())
	return 0
}

// leaderShownOtherThan moves the leadership off node via, whose console tab shows, and returns
// the leader the page then shows: a test that kills the leader, or reads via's console as a
// follower's, needs via to follow. An election on a busy machine can make via the leader again
// meanwhile; it is moved away at most three times.
func leaderShownOtherThan(t *testing.T, c *e2etest.Cluster, tab context.Context, via string) string {
	t.Helper()
	for attempt := 1; ; attempt++ {
		c.LeadFromAnother(via)
		if leader := waitLeaderShown(t, c, tab); leader != via {
			return leader
		}
		if attempt == 3 {
			t.Fatalf("%s leads again after %d transfers away from it", via, attempt)
		}
	}
}

// waitLeaderShown polls until the console in tab shows the leader the cluster names at that
// moment, and returns it.
func waitLeaderShown(t *testing.T, c *e2etest.Cluster, tab context.Context) string {
	t.Helper()
	var leader string
	poll.Until(t, "the console to show the cluster's leader", consoleFailover, consolePoll, func() error {
		leader = c.Leader()
		got, err := shownLeader(tab)
		if err == nil && got != leader {
			err = fmt.Errorf("it shows %s; the cluster's is %s", got, leader)
		}
		return err
	})
	return leader
}

// TestConsole opens the console of a follower of a three-node cluster. Cluster: the leader it
// shows is the cluster's. Counters: a counter advanced through the API shows its value, and
// its new value after it is advanced again; with 10⁵ more counters the page loads its first
// page (the time is logged: docs/BENCHMARKS.md) and pages on. Then the leader is killed (kill -9) and the
// Cluster page must show the leader the survivors elected.
func TestConsole(t *testing.T) {
	c := e2etest.StartClusterWith(t, func(string) e2etest.NodeOpts { return e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t)} })
	leader := c.Leader()
	via := c.Others(leader)[0]
	base := "http://" + c.Node(via).Opts.HTTPAddr + "/ui/"
	tab := headless.New(t)

	began := time.Now()
	if err := headless.Navigate(tab, base,
		chromedp.WaitVisible(chromedp.CSS("#leader[data-leader]"))); err != nil {
		t.Fatalf("opening the console of %s: %v", via, err)
	}
	t.Logf("the console of %s showed the cluster %v after it was asked for", via, time.Since(began).Round(time.Millisecond))
	leader = leaderShownOtherThan(t, c, tab, via)
	rows, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("#nodes tbody tr").length`))
	if err != nil || rows != len(e2etest.ClusterTags) {
		t.Errorf("the members table has %d rows (%v); want %d", rows, err, len(e2etest.ClusterTags))
	}
	if got, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#cluster-version"))); err != nil || got != strconv.FormatUint(uint64(fsm.CurrentVersion), 10) {
		t.Errorf("the console shows cluster version %q (%v); a new cluster is at %d", got, err, fsm.CurrentVersion)
	}
	// A cluster started without --backup-target: the backups panel says so (GET /v1/backups).
	if got, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#backups-summary"))); err != nil || !strings.Contains(got, "takes no scheduled backups") {
		t.Errorf("the backups panel says %q (%v); want that the node takes no scheduled backups", got, err)
	}
	// The replica check: the follower's console points at the leader's, and the leader's shows
	// its last check with every member agreeing.
	poll.Until(t, "a follower's console to point at the leader's for the replica check", consoleFailover, consolePoll, func() error {
		got, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#replicas")))
		if err == nil && !strings.Contains(got, "the leader's console shows the last check") {
			err = fmt.Errorf("it says %q", got)
		}
		return err
	})
	if rc, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ReplicaCheck, error) {
		return c.Admin[leader].CheckReplicas(ctx, &idnodev1.CheckReplicasRequest{})
	}); err != nil || rc.GetMismatches() != 0 {
		t.Fatalf("CheckReplicas via %s: %v, %v", leader, rc, err)
	}
	leaderTab := headless.New(t)
	if err := headless.Navigate(leaderTab, "http://"+c.Node(leader).Opts.HTTPAddr+"/ui/",
		chromedp.WaitVisible(chromedp.CSS("#leader[data-leader]"))); err != nil {
		t.Fatalf("opening the console of %s: %v", leader, err)
	}
	want3 := fmt.Sprintf("%d agree", len(e2etest.ClusterTags))
	poll.Until(t, "the leader's console to show the replica check", consoleFailover, consolePoll, func() error {
		got, err := chromedp.Run(leaderTab, chromedp.TextContent(chromedp.CSS("#replicas")))
		if err == nil && !strings.Contains(got, want3) {
			err = fmt.Errorf("it shows %q; want %q", got, want3)
		}
		return err
	})
	screenshot(t, tab, "console-cluster")

	const name = "orders"
	advance := func(n int64) int64 {
		t.Helper()
		req := &idnodev1.NextIdentityRequest{Name: name, Count: n, RequestId: c.RequestID()}
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextIdentityResponse, error) {
			return c.Ids[via].NextIdentity(ctx, req)
		}); err != nil {
			t.Fatalf("NextIdentity(%s, %d): %v", name, n, err)
		}
		return listedCounter(t, c, via, name)
	}
	want := advance(7)
	if err := headless.Navigate(tab, base+"#counters",
		chromedp.SetValue(chromedp.CSS("#counter-prefix"), name),
		chromedp.Click(chromedp.CSS("#counter-search button[type=submit]"))); err != nil {
		t.Fatalf("searching the counters for %s: %v", name, err)
	}
	waitCounter := func(want int64) {
		t.Helper()
		poll.Until(t, fmt.Sprintf("the console to show %s at %d", name, want), consoleFailover, consolePoll, func() error {
			got, err := shownCounter(tab, name)
			if err != nil {
				return err
			}
			if got != strconv.FormatInt(want, 10) {
				return fmt.Errorf("it shows %s", got)
			}
			return nil
		})
	}
	waitCounter(want)
	want = advance(5)
	waitCounter(want) // the page in view is read again every few seconds
	screenshot(t, tab, "console-counters")
	if err := headless.Navigate(tab, base+"#cluster"); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the cluster page to count the identities "+via+" handed out", consoleFailover, consolePoll, func() error {
		got, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS(`#rates tr[data-strategy="identity"] td:nth-child(3)`)))
		if err == nil && got != "12" {
			err = fmt.Errorf("it shows %q; want 12 (7 and 5)", got)
		}
		return err
	})

	mustRestoreCounters(t, c, bulkCounters)
	if err := headless.Navigate(tab, "about:blank"); err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	opening, cancel := context.WithTimeout(tab, consoleLoad)
	err = headless.Navigate(opening, base+"#counters",
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#counter-table tbody tr:nth-child(%d)", consolePageSize))))
	cancel()
	if err != nil {
		t.Errorf("opening the counters page with %d counters: %v; the page shows %s", bulkCounters, err, pageSays(tab, "problem", "counter-caption"))
		screenshot(t, tab, "console-counters-bulk-failed")
		t.FailNow()
	}
	t.Logf("the counters page of %s loaded with its first %d of %d counters in %v",
		via, consolePageSize, bulkCounters, time.Since(began).Round(time.Millisecond))
	first := func() string {
		t.Helper()
		name, err := chromedp.Run(tab, chromedp.AttributeValue(chromedp.CSS("#counter-table tbody tr"), "data-name"))
		if err != nil || !name.Exists {
			t.Fatalf("the counters table's first row: %v", err)
		}
		return name.Value
	}
	page1 := first()
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#counter-next"))); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the next page of counters", consoleFailover, consolePoll, func() error {
		if got := first(); got == page1 {
			return fmt.Errorf("the first row is still %s", got)
		}
		return nil
	})
	screenshot(t, tab, "console-counters-bulk")

	// HiLo: a range of carts through each node gives each node a pool of it; the page shows
	// the tag's Max and every node's pool as ListHiLo answers them.
	for _, tag := range e2etest.ClusterTags {
		req := &idnodev1.NextHiLoRequest{Tag: "carts", RequestId: c.RequestID()}
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) {
			return c.Ids[tag].NextHiLo(ctx, req)
		}); err != nil {
			t.Fatalf("NextHiLo(carts) via %s: %v", tag, err)
		}
	}
	listed, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ListHiLoResponse, error) {
		return c.Ids[via].ListHiLo(ctx, &idnodev1.ListHiLoRequest{Prefix: "carts"})
	})
	if err != nil || len(listed.GetTags()) != 1 || len(listed.GetTags()[0].GetPools()) != len(e2etest.ClusterTags) {
		t.Fatalf("ListHiLo(carts) = %v, %v; want carts with a pool on each node", listed, err)
	}
	carts := listed.GetTags()[0]
	if out := e2etest.MustIdctl(t, []string{"IDNODE_ADDR=" + c.Node(via).GRPCAddr}, "hilo", "list", "--prefix", "carts"); strings.Count(out, "\ncarts ") != len(e2etest.ClusterTags) {
		t.Errorf("idctl hilo list shows carts on %d rows; want one per node:\n%s", strings.Count(out, "\ncarts "), out)
	}
	if err := headless.Navigate(tab, base+"#hilo", chromedp.WaitVisible(chromedp.CSS(`#hilo-table tr[data-tag="carts"]`))); err != nil {
		t.Fatalf("opening the HiLo page: %v", err)
	}
	shown, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`(() => { const r = document.querySelector('#hilo-table tr[data-tag="carts"]');
		return [r.cells[1].textContent, ...[...r.querySelectorAll("li")].map((li) => li.textContent)]; })()`))
	if err != nil || len(shown) != 1+len(e2etest.ClusterTags) || shown[0] != strconv.FormatInt(carts.GetMax(), 10) {
		t.Fatalf("the HiLo page shows carts as %q (%v); ListHiLo: Max %d, %d pools", shown, err, carts.GetMax(), len(carts.GetPools()))
	}
	for i, p := range carts.GetPools() {
		want := fmt.Sprintf("node %s: %d left of %d, %d reserved in all", p.GetNode(), p.GetRemaining(), p.GetTarget(), p.GetReserved())
		if !p.GetAnswered() || p.GetRemaining() <= 0 || !strings.HasPrefix(shown[1+i], want) {
			t.Errorf("pool %d of carts: the page shows %q; ListHiLo says %v", i, shown[1+i], p)
		}
	}
	screenshot(t, tab, "console-hilo")

	if err := headless.Navigate(tab, base+"#cluster"); err != nil {
		t.Fatal(err)
	}
	// The leader to kill, read again: an election since the first read can have moved it, to
	// via too, whose page could not then show the next.
	leader = leaderShownOtherThan(t, c, tab, via)
	c.Node(leader).Kill9()
	killed := time.Now()
	var next string
	// The page and the node it is served by must agree on the new leader. They are read in
	// one poll, not the page first and the node later: on a loaded machine the survivors can
	// hold a second election in between, and a leader named seconds apart is no mismatch.
	poll.Until(t, "the console to show the new leader "+via+" names", consoleFailover, consolePoll, func() error {
		got, err := shownLeader(tab)
		if err != nil {
			return err
		}
		if got == "" || got == leader {
			return fmt.Errorf("it shows %q", got)
		}
		named, err := c.LeaderNamedBy(via)
		if err != nil {
			return fmt.Errorf("it shows leader %s; %w", got, err)
		}
		if named != got {
			return fmt.Errorf("it shows leader %s; %s names %s", got, via, named)
		}
		next = got
		return nil
	})
	t.Logf("the console showed leader %s, as %s names it, %v after the kill -9 of %s", next, via, time.Since(killed).Round(time.Millisecond), leader)
	// The node keeps the changes it saw since it started: the killed leader, then the next.
	poll.Until(t, "the leadership changes to end with "+next, consoleFailover, consolePoll, func() error {
		changes, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#changes li")].map((li) => li.textContent)`))
		if err != nil {
			return err
		}
		old := slices.IndexFunc(changes, func(c string) bool { return strings.Contains(c, "leader "+leader) })
		if old < 0 || old == len(changes)-1 || !strings.Contains(changes[len(changes)-1], "leader "+next) {
			return fmt.Errorf("it lists %q; want leader %s, then leader %s last", changes, leader, next)
		}
		return nil
	})
	screenshot(t, tab, "console-cluster-after-failover")
}

// bulkCounters is how many counters the console's counters page is loaded with (a
// page must load in under a second with 10⁵), and consolePageSize the rows of one of its pages.
const (
	bulkCounters    = 100_000
	consolePageSize = 50
)

// mustRestoreCounters gives the cluster n more counters, bulk-000000 … (value k+1), through a
// Restore of a backup made in-process: n NextIdentity calls would take the cluster most of a
// minute, the restore a second or two.
func mustRestoreCounters(t *testing.T, c *e2etest.Cluster, n int) {
	t.Helper()
	records := make([]*raftv1.IdentityRecord, n)
	for k := range records {
		records[k] = &raftv1.IdentityRecord{Name: fmt.Sprintf("bulk-%06d", k), Value: int64(k + 1)}
	}
	data, err := fsm.Encode(fsm.RaiseFloorCommand, &raftv1.RaiseFloor{Identities: records})
	if err != nil {
		t.Fatal(err)
	}
	f := fsm.New()
	if err, ok := f.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
		t.Fatal(err)
	}
	var backup bytes.Buffer
	if err := f.WriteBackup(&backup, fsm.IssueRates{}); err != nil {
		t.Fatal(err)
	}
	// A restore raises floors, so a retry through another node after an election does no
	// harm; a loaded machine can hold one while the leader applies this large entry.
	c.Retried(fmt.Sprintf("Restore of %d counters", n), func(ctx context.Context, tag string) error {
		stream, err := c.Admin[tag].Restore(ctx)
		if err != nil {
			return err
		}
		for chunk := range slices.Chunk(backup.Bytes(), 1<<20) {
			if err := stream.Send(&idnodev1.RestoreChunk{Data: chunk}); err != nil {
				return err
			}
		}
		_, err = stream.CloseAndRecv()
		return err
	})
}

// consolePages are the console's pages, as their fragments name them.
var consolePages = []string{"cluster", "counters", "databases", "hilo", "claims", "series"}

// useCredential types cred into the console's key field and waits until the page says who
// the node takes the caller for, a text containing want.
func useCredential(t *testing.T, tab context.Context, cred, want string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.SetValue(chromedp.CSS("#key"), cred),
		chromedp.Click(chromedp.CSS("#credential button[type=submit]"))); err != nil {
		t.Fatalf("entering a credential: %v", err)
	}
	poll.Until(t, "the console to say who the caller is", consoleFailover, consolePoll, func() error {
		got, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#caller")))
		if err == nil && !strings.Contains(got, want) {
			err = fmt.Errorf("it says %q; want %q in it", got, want)
		}
		return err
	})
}

// visibleActions are the ids of the admin actions a person sees on page.
func visibleActions(t *testing.T, tab context.Context, base, page string) []string {
	t.Helper()
	if err := headless.Navigate(tab, base+"#"+page, chromedp.WaitVisible(chromedp.CSS("#"+page))); err != nil {
		t.Fatalf("opening page %s: %v", page, err)
	}
	ids, err := chromedp.Run(tab, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("[data-action]")].filter((e) => e.checkVisibility()).map((e) => e.id)`))
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// confirmAction clicks the action control at selector and confirms in the dialog, which must
// name every string of names; it returns once the element status says the node did it. A
// refusal for want of a leader, which says nothing was done (an election on a busy machine),
// is met as an operator meets it: the action is made again, three times at most.
func confirmAction(t *testing.T, tab context.Context, selector, status string, names ...string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(selector)),
			chromedp.WaitVisible(chromedp.CSS("#confirm[open]"))); err != nil {
			t.Fatalf("%s: the confirmation did not open: %v", selector, err)
		}
		what, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#confirm")))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !strings.Contains(what, n) {
				t.Errorf("%s: the confirmation %q does not name %q", selector, what, n)
			}
		}
		screenshot(t, tab, "console-confirm-"+status)
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#confirm-ok"))); err != nil {
			t.Fatal(err)
		}
		var got string
		poll.Until(t, selector+" to be answered", consoleFailover, consolePoll, func() (err error) {
			got, err = chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#"+status)))
			if err == nil && got != "Done." && !strings.HasPrefix(got, "Refused: ") {
				err = fmt.Errorf("its status says %q", got)
			}
			return err
		})
		nothingDone := strings.Contains(got, ": 503 no quorum: ") && !strings.Contains(got, "outcome is unknown")
		switch {
		case got == "Done.":
			return
		case !nothingDone || attempt == 3:
			t.Fatalf("%s, made %d times: its status says %q; want \"Done.\"", selector, attempt, got)
		}
	}
}

// TestConsoleActions: on a cluster with an admin token and API keys, a reader key sees no
// admin action on any page; the admin token sees them, and each changes what it names only
// once confirmed: a counter raised, a database created, leadership moved to the node chosen.
func TestConsoleActions(t *testing.T) {
	const token = "console-admin-token"
	c := e2etest.StartClusterWith(t, func(string) e2etest.NodeOpts {
		return e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t), Extra: []string{"--admin-token", token}}
	})
	// A context of its own for each call: the browser's steps between them take longer than one
	// call's timeout.
	admin := func() context.Context {
		return metadata.AppendToOutgoingContext(e2etest.RPCCtx(t), "authorization", "Bearer "+token)
	}
	leader := c.Leader()
	via := c.Others(leader)[0]
	key, err := c.Admin[leader].CreateKey(admin(), &idnodev1.CreateKeyRequest{Database: "default", Role: "reader"})
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if _, err := c.Ids[leader].NextIdentity(admin(), &idnodev1.NextIdentityRequest{Name: "orders", Count: 3}); err != nil {
		t.Fatal(err)
	}
	const claimed, owner = "users/ayende", "alice"
	if _, err := c.Ids[leader].Claim(admin(), &idnodev1.ClaimRequest{Ids: []string{claimed}, Owner: owner}); err != nil {
		t.Fatal(err)
	}
	base := "http://" + c.Node(via).Opts.HTTPAddr + "/ui/"
	tab := headless.New(t)
	if err := headless.Navigate(tab, base, chromedp.WaitVisible(chromedp.CSS("#leader[data-leader]"))); err != nil {
		t.Fatalf("opening the console of %s: %v", via, err)
	}

	// Without a credential, a page the caller may not read says why and what to do.
	visibleActions(t, tab, base, "counters")
	poll.Until(t, "the counters page to say a key is needed", consoleFailover, consolePoll, func() error {
		got, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#problem")))
		if err == nil && !strings.Contains(got, "Enter a key that may read this") {
			err = fmt.Errorf("its alert says %q", got)
		}
		return err
	})
	screenshot(t, tab, "console-no-credential")

	useCredential(t, tab, key.GetKey(), "reader of database default")
	for _, page := range consolePages {
		if shown := visibleActions(t, tab, base, page); len(shown) != 0 {
			t.Errorf("a reader key sees admin actions on page %s: %v", page, shown)
		}
		screenshot(t, tab, "console-reader-"+page)
	}

	if out := e2etest.MustIdctl(t, []string{"IDNODE_ADDR=" + c.Node(via).GRPCAddr, "IDNODE_KEY=" + key.GetKey()}, "whoami"); !strings.Contains(out, "admin: no\n") ||
		!strings.Contains(out, "(reader of database default)") {
		t.Errorf("idctl whoami with the reader key:\n%s", out)
	}
	useCredential(t, tab, token, "admin (by token)")
	// As the admin sees them, with every action shown, no control is left without a name a
	// screen reader can say: a field without its label, a button without text.
	for _, page := range consolePages {
		visibleActions(t, tab, base, page)
		nameless, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll(
			"input, select, textarea, button")].filter((e) => e.checkVisibility() &&
			(e.tagName === "BUTTON" ? (e.getAttribute("aria-label") || e.textContent).trim() === "" : e.labels.length === 0)).map((e) => e.id || e.outerHTML)`))
		if err != nil || len(nameless) != 0 {
			t.Errorf("page %s: controls without a label or text: %q (%v)", page, nameless, err)
		}
	}
	want := map[string][]string{"cluster": {"transfer"}, "counters": {"seed"}, "databases": {"db-create", "key-create"},
		"claims": {"claim-release-0"}}
	for _, page := range consolePages {
		if shown := visibleActions(t, tab, base, page); !slices.Equal(shown, want[page]) {
			t.Errorf("the admin token sees actions %v on page %s; want %v", shown, page, want[page])
		}
	}

	counter := func() int64 { return listedCounter(t, c, leader, "orders", "authorization", "Bearer "+token) }
	before := counter()
	visibleActions(t, tab, base, "counters")
	if err := chromedp.Do(tab, chromedp.SetValue(chromedp.CSS("#seed-name"), "orders"),
		chromedp.SetValue(chromedp.CSS("#seed-value"), "100"),
		chromedp.Click(chromedp.CSS("#seed button[type=submit]")), chromedp.WaitVisible(chromedp.CSS("#confirm[open]")),
		chromedp.Click(chromedp.CSS("#confirm-cancel"))); err != nil {
		t.Fatalf("cancelling a raise: %v", err)
	}
	if got := counter(); got != before {
		t.Fatalf("a cancelled raise moved orders from %d to %d", before, got)
	}
	confirmAction(t, tab, "#seed button[type=submit]", "seed-status", "orders", "100", "default")
	if got := counter(); got != 100 {
		t.Errorf("orders after the console raised it to 100: %d", got)
	}

	visibleActions(t, tab, base, "databases")
	if err := chromedp.Do(tab, chromedp.SetValue(chromedp.CSS("#db-name"), "billing")); err != nil {
		t.Fatal(err)
	}
	confirmAction(t, tab, "#db-create button[type=submit]", "db-status", "billing")
	dbs, err := c.Admin[via].ListDatabases(admin(), &idnodev1.ListDatabasesRequest{})
	if err != nil || !slices.ContainsFunc(dbs.GetDatabases(), func(d *idnodev1.DatabaseStatus) bool { return d.GetName() == "billing" }) {
		t.Errorf("ListDatabases after the console created billing: %v, %v", dbs, err)
	}
	screenshot(t, tab, "console-databases")

	visibleActions(t, tab, base, "claims")
	confirmAction(t, tab, "#claim-release-0", "claim-status", claimed, owner, "default")
	if got, err := c.Ids[via].GetClaims(admin(), &idnodev1.GetClaimsRequest{Ids: []string{claimed}}); err != nil || len(got.GetClaims()) != 0 {
		t.Errorf("GetClaims(%s) after the console released it: %v, %v", claimed, got, err)
	}

	visibleActions(t, tab, base, "cluster")
	// An election on a busy machine may have moved the leadership since the test began: the
	// transfer is from the leader that the cluster and the page both name now.
	leader = waitLeaderShown(t, c, tab)
	target := c.Others(leader)[1]
	if err := chromedp.Do(tab, chromedp.SetValue(chromedp.CSS("#transfer-to"), target)); err != nil {
		t.Fatal(err)
	}
	confirmAction(t, tab, "#transfer button[type=submit]", "transfer-status", "Node "+leader, "node "+target)
	if got := c.Leader(); got != target {
		t.Errorf("the leader after the console moved leadership to %s: %s", target, got)
	}
}

// TestConsoleSeries: the Series page of a node shows a series' journal with its journaled gap
// and reason, verifies it, and exports it as CSV whose rows are the journal's (a caller's
// field that looks like a spreadsheet formula defused); after one entry's document is swapped
// on disk, its verification names that entry and marks its row.
func TestConsoleSeries(t *testing.T) {
	p := e2etest.StartNode(t, e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t)})
	p.WaitServing(e2etest.ServeTimeout)
	client := idnodev1.NewSeriesServiceClient(e2etest.DialConn(t, p.GRPCAddr))
	if _, err := client.CreateSeries(e2etest.RPCCtx(t), &idnodev1.CreateSeriesRequest{Name: "INV", Format: "INV-{n:04}",
		Policy: idnodev1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := client.Issue(e2etest.RPCCtx(t), &idnodev1.IssueRequest{Series: "INV", RequestId: fmt.Sprintf("doc-%d", i),
			DocumentHash: "aa11", Fields: []*idnodev1.SeriesField{{Key: "customer", Value: "ACME, Ltd"}}}); err != nil {
			t.Fatal(err)
		}
	}
	// A reason that a spreadsheet would run as a formula, were it the CSV cell as given.
	const reason = `=HYPERLINK("http://evil.example","skipped: the printer jammed")`
	if _, err := client.Void(e2etest.RPCCtx(t), &idnodev1.VoidRequest{Series: "INV", Number: 6, Reason: reason, RequestId: "gap-6"}); err != nil {
		t.Fatal(err)
	}
	want := journalVia(t, client, "INV")

	tab := headless.New(t)
	downloads := t.TempDir()
	if _, err := chromedp.Call(tab, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatalf("letting the browser download: %v", err)
	}
	base := "http://" + p.Opts.HTTPAddr + "/ui/"
	openJournal := func() {
		t.Helper()
		if err := headless.Navigate(tab, "about:blank", chromedp.Navigate(base+"#series"),
			chromedp.Click(chromedp.CSS(`#series-table tr[data-name="INV"] button`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#journal-table tbody tr:nth-child(%d)", len(want))))); err != nil {
			t.Fatalf("opening the journal of INV: %v", err)
		}
	}
	verdict := func(wantIn string) string {
		t.Helper()
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#journal-verify"))); err != nil {
			t.Fatal(err)
		}
		var got string
		poll.Until(t, "the verdict on INV", consoleFailover, consolePoll, func() (err error) {
			got, err = chromedp.Run(tab, chromedp.TextContent(chromedp.CSS("#verdict")))
			if err == nil && !strings.Contains(got, wantIn) {
				err = fmt.Errorf("it says %q; want %q in it", got, wantIn)
			}
			return err
		})
		return got
	}

	openJournal()
	gap, err := chromedp.Run(tab, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#journal-table tbody tr.void")].map((r) => r.dataset.seq + " " + r.cells[5].textContent)`))
	if err != nil || !slices.Equal(gap, []string{"6 " + reason}) {
		t.Errorf("voided rows shown: %q (%v); want entry 6 with its reason", gap, err)
	}
	verdict("hold: 6 entries, 5 issued, 1 voided")

	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#journal-csv"))); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	poll.Until(t, "the CSV download", consoleFailover, consolePoll, func() error {
		f, err := os.Open(filepath.Join(downloads, "INV-journal.csv"))
		if err != nil {
			return err
		}
		defer f.Close()
		rows, err = csv.NewReader(f).ReadAll()
		return err
	})
	if len(rows) != len(want)+1 {
		t.Fatalf("the CSV has %d rows; want a header and %d entries", len(rows), len(want))
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	for i, e := range want {
		r := rows[i+1]
		wantReason, wantFields := "", "customer=ACME, Ltd"
		if e.GetKind() == idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED {
			wantReason, wantFields = "'"+reason, "" // the formula defused by a leading quote
		}
		if r[col("seq")] != strconv.FormatUint(e.GetSeq(), 10) || r[col("id")] != e.GetId() || r[col("hash")] != e.GetHash() ||
			r[col("prev_hash")] != e.GetPrevHash() || r[col("reason")] != wantReason || r[col("fields")] != wantFields {
			t.Errorf("CSV row %d = %q; the journal's entry is %v", i+1, r, e)
		}
	}
	screenshot(t, tab, "console-series")

	p.Stop()
	const edited = 3
	swapDocument(t, p.DataDir, "inv", edited, "INV-0003")
	p.Restart()
	p.WaitServing(e2etest.ServeTimeout)
	openJournal()
	got := verdict(fmt.Sprintf("Broken at entry %d", edited))
	marked, err := chromedp.Run(tab, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#journal-table tbody tr.break")].map((r) => r.dataset.seq)`))
	if err != nil || !slices.Equal(marked, []string{strconv.Itoa(edited)}) {
		t.Errorf("rows marked as the break: %v (%v); want entry %d (the page says %q)", marked, err, edited, got)
	}
	screenshot(t, tab, "console-series-broken")
}

// TestConsoleOverTLS: behind TLS the console loads, the node takes its actions (a POST with
// the page's https Origin, its own origin over TLS), and the admin token entered in the page
// raises a counter. The browser does not know the cluster's CA, so it is told to accept the
// node's certificate; nothing else changes.
func TestConsoleOverTLS(t *testing.T) {
	dir := e2etest.TLSCerts(t, "A")
	tc, err := tlsconfig.Client(filepath.Join(dir, "ca.crt"), "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	creds := credentials.NewTLS(tc)
	const token = "console-tls-token"
	p := e2etest.StartNode(t, e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t), Extra: append(e2etest.TLSFlags(dir)("A"), "--admin-token", token)})
	e2etest.WaitServingOver(t, p, creds, e2etest.ServeTimeout)
	tab := headless.New(t, chromedp.Flag("ignore-certificate-errors", true))
	base := "https://" + p.Opts.HTTPAddr + "/ui/"
	if err := headless.Navigate(tab, base, chromedp.WaitVisible(chromedp.CSS("#leader[data-leader]"))); err != nil {
		t.Fatalf("opening the console over TLS: %v", err)
	}
	useCredential(t, tab, token, "admin (by token)")
	visibleActions(t, tab, base, "counters")
	if err := chromedp.Do(tab, chromedp.SetValue(chromedp.CSS("#seed-name"), "orders"),
		chromedp.SetValue(chromedp.CSS("#seed-value"), "42")); err != nil {
		t.Fatal(err)
	}
	confirmAction(t, tab, "#seed button[type=submit]", "seed-status", "orders", "42")
	ids := idnodev1.NewIdServiceClient(e2etest.DialOver(t, p.GRPCAddr, creds))
	resp, err := ids.NextIdentity(e2etest.RPCCtx(t), &idnodev1.NextIdentityRequest{Name: "orders"})
	if err != nil || resp.GetFirst() != 43 {
		t.Fatalf("the identity after the console raised orders to 42 over TLS = %v, %v; want 43", resp, err)
	}
}
