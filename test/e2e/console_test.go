package e2e

// The web console (issue 29, package console) in a real browser: Debian's chromium, headless,
// driven with chromedp, against a three-node cluster of real processes. Screenshots of each
// page go to the artefacts directory (consoleArtefacts).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/idnode/idnode/internal/poll"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

const (
	browserTimeout = 2 * time.Minute        // the whole browser session of one test
	consolePoll    = 100 * time.Millisecond // reading the page
	// consoleFailover is how long the page may take to show the new leader after a kill -9
	// of the old one: an election (about a second here) plus the page's refresh (1 s).
	consoleFailover = 10 * time.Second
)

// browserNames are the programs tried for a browser, Debian's first.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome"}

// browserPath is the headless browser the console tests drive. Without one the test is
// skipped, but fails under CI=true: .ci/run installs Debian's chromium.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no browser for the console tests (tried %v): apt-get install chromium", browserNames)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// newBrowser starts a headless browser for the test and returns a tab's context. As root in a
// container the browser's own sandbox cannot start, so it runs without (the page is ours).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browserPath(t)),
		chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), browserTimeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelTab(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	return tab
}

// consoleArtefacts is where the console tests write their screenshots: $IDNODE_ARTEFACTS, else
// test/e2e/artefacts in the checkout (ignored by git).
func consoleArtefacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("IDNODE_ARTEFACTS")
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "test", "e2e", "artefacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot writes the whole page as name.png to the artefacts directory.
func screenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(consoleArtefacts(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
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

// listedCounter is a counter's value as ListIdentities gives it (the leader's, linearizable).
func listedCounter(t *testing.T, c *cluster, via, name string) int64 {
	t.Helper()
	resp, err := c.ids[via].ListIdentities(rpcCtx(t), &idnodev1.ListIdentitiesRequest{Prefix: name})
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

// TestConsole opens the console of a follower of a three-node cluster. Cluster: the leader it
// shows is the cluster's. Counters: a counter advanced through the API shows its value, and
// its new value after it is advanced again. Then the leader is killed (kill -9) and the
// Cluster page must show the leader the survivors elected.
func TestConsole(t *testing.T) {
	c := startClusterWith(t, func(string) nodeOpts { return nodeOpts{HTTPAddr: freeAddr(t)} })
	leader := c.leader()
	via := c.others(leader)[0]
	base := "http://" + c.node(via).opts.HTTPAddr + "/ui/"
	tab := newBrowser(t)

	began := time.Now()
	if err := chromedp.Do(tab, chromedp.Navigate(base),
		chromedp.WaitVisible(chromedp.CSS("#leader[data-leader]"))); err != nil {
		t.Fatalf("opening the console of %s: %v", via, err)
	}
	t.Logf("the console of %s showed the cluster %v after it was asked for", via, time.Since(began).Round(time.Millisecond))
	if got, err := shownLeader(tab); err != nil || got != leader {
		t.Fatalf("the console shows leader %q (%v); the cluster's is %s", got, err, leader)
	}
	rows, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("#nodes tbody tr").length`))
	if err != nil || rows != len(clusterTags) {
		t.Errorf("the members table has %d rows (%v); want %d", rows, err, len(clusterTags))
	}
	screenshot(t, tab, "console-cluster")

	const name = "orders"
	advance := func(n int64) int64 {
		t.Helper()
		if _, err := c.ids[leader].NextIdentity(rpcCtx(t), &idnodev1.NextIdentityRequest{Name: name, Count: n}); err != nil {
			t.Fatalf("NextIdentity(%s, %d): %v", name, n, err)
		}
		return listedCounter(t, c, via, name)
	}
	want := advance(7)
	if err := chromedp.Do(tab, chromedp.Navigate(base+"#counters"),
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

	if err := chromedp.Do(tab, chromedp.Navigate(base+"#cluster")); err != nil {
		t.Fatal(err)
	}
	c.node(leader).kill9()
	killed := time.Now()
	var next string
	poll.Until(t, "the console to show a new leader", consoleFailover, consolePoll, func() error {
		got, err := shownLeader(tab)
		if err != nil {
			return err
		}
		if got == "" || got == leader {
			return fmt.Errorf("it shows %q", got)
		}
		next = got
		return nil
	})
	t.Logf("the console showed leader %s %v after the kill -9 of %s", next, time.Since(killed).Round(time.Millisecond), leader)
	if want := c.leader(via); next != want {
		t.Errorf("the console shows leader %s; %s names %s", next, via, want)
	}
	screenshot(t, tab, "console-cluster-after-failover")
}
