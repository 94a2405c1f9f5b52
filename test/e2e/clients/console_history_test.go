package clients

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/idnode/idnode/internal/history"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/headless"
	"github.com/idnode/idnode/test/helpers/poll"
)

const (
	// historySample is the nodes' --console-sample-interval here: an hour of samples cannot
	// be waited for, so the graphs show what a minute at one sample a second holds.
	historySample = time.Second
	// historyPhase is how long traffic runs before the leadership change and after it.
	historyPhase = 25 * time.Second
	// historyCalls bounds each phase's calls whatever the machine's speed.
	historyCalls = 5000
)

// TestConsoleHistory opens a follower's console on a three-node cluster sampling every
// second, sends it identity, server-side and GUID calls, moves the leadership to the other
// follower, sends more, and checks that the page's graphs have the points the node sampled,
// a clock offset line for every node, and the leadership change marked on the time axis,
// labelled with the new leader. The screenshot of the graphs is docs/console-history.png.
func TestConsoleHistory(t *testing.T) {
	c := e2etest.StartClusterWith(t, func(string) e2etest.NodeOpts {
		return e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t), Extra: []string{"--console-sample-interval", historySample.String()}}
	})
	via := c.Others(c.Leader())[0]
	tab := headless.New(t)
	if err := headless.Navigate(tab, "http://"+c.Node(via).Opts.HTTPAddr+"/ui/",
		chromedp.WaitVisible(chromedp.CSS(`figure[data-series="ids"]`))); err != nil {
		t.Fatalf("opening the console of %s: %v", via, err)
	}

	traffic(t, c, via)
	next, transferred := handOver(t, c, via)
	traffic(t, c, via)

	minPoints := int(historyPhase / historySample) // at least a phase's worth, of two
	poll.Until(t, "the graphs to show the samples and the change to leader "+next, consoleFailover, consolePoll, func() error {
		for _, line := range []string{`figure[data-series="ids"] path[data-line="identity"]`,
			`figure[data-series="identity_latency"] path[data-line="p99"]`,
			`figure[data-series="commit_rate"] path[data-line="commit_index"]`,
			`figure[data-series="disk_free"] path[data-line="data_dir"]`} {
			if n := shownPoints(tab, line); n < minPoints {
				return fmt.Errorf("%s has %d points; want at least %d", line, n, minPoints)
			}
		}
		// The cluster's first election may have marks of its own; the transfer's is the one
		// after it was asked for. A machine starved of CPU can cost the new leader its lease
		// and see it elected again: each change the node recorded is one mark, no more.
		changes, err := changesTo(c.Node(via).Opts.HTTPAddr, next, transferred)
		if err != nil {
			return err
		}
		marks, err := chromedp.Run(tab, chromedp.Evaluate[int](fmt.Sprintf(
			`[...document.querySelectorAll('figure[data-series="ids"] .leader-change[data-leader=%q]')]
			   .filter((g) => Number(g.dataset.at) >= %d && g.querySelector("line")).length`, next, transferred.UnixMilli())))
		if err != nil || changes == 0 || marks != changes {
			return fmt.Errorf("the ids graph has %d marks of leader %s since the transfer (%v); the node recorded %d changes to it", marks, next, err, changes)
		}
		return nil
	})
	// Each node measures its clock every 10 s (server.DefaultClockProbeInterval), so its
	// line starts later than the others.
	for _, tag := range e2etest.ClusterTags {
		line := fmt.Sprintf(`figure[data-series="clock_offset"] path[data-line=%q]`, tag)
		if n := shownPoints(tab, line); n < minPoints/2 {
			t.Errorf("%s has %d points; want at least %d", line, n, minPoints/2)
		}
	}
	png, err := chromedp.Run(tab, chromedp.Screenshot(chromedp.CSS("#graphs")))
	if err != nil {
		t.Fatalf("screenshot of the graphs: %v", err)
	}
	path := filepath.Join(e2etest.Artefacts(t), "console-history.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// handOver hands the leadership to a node that does not lead, the other follower while via
// follows, and returns that node and a time before the change. A loaded machine can move the
// leadership by an election between the test's look at the leader and its request, and a
// transfer to the node that leads by then changes nothing, leaving no mark to look for: the
// change is taken to be made once the term has moved on and the node leads, and asked for
// again otherwise.
func handOver(t *testing.T, c *e2etest.Cluster, via string) (string, time.Time) {
	t.Helper()
	for range 3 {
		asked := time.Now()
		before, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
			return c.Admin[via].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		})
		if err != nil {
			t.Fatalf("Status via %s: %v", via, err)
		}
		next := c.Others(before.GetLeader(), via)[0]
		if before.GetLeader() == via {
			next = c.Others(via)[0]
		}
		if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.TransferLeadershipResponse, error) {
			return c.Admin[via].TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{Tag: next})
		}); err != nil {
			t.Fatalf("TransferLeadership to %s: %v", next, err)
		}
		after, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.StatusResponse, error) {
			return c.Admin[via].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		})
		if err != nil {
			t.Fatalf("Status via %s: %v", via, err)
		}
		if after.GetLeader() == next && after.GetTerm() > before.GetTerm() {
			return next, asked
		}
		t.Logf("leader %s in term %d, then %s in term %d after a transfer to %s: asking again", before.GetLeader(), before.GetTerm(), after.GetLeader(), after.GetTerm(), next)
	}
	t.Fatal("three transfers of the leadership made no change to the node asked for")
	return "", time.Time{}
}

// changesTo is how many leader changes to leader the node serving HTTP at addr recorded at
// or after since, from the history its console draws (GET /v1/history).
func changesTo(addr, leader string, since time.Time) (int, error) {
	resp, err := http.Get("http://" + addr + "/v1/history")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var h history.Answer
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return 0, fmt.Errorf("GET /v1/history: %s: %w", resp.Status, err)
	}
	n := 0
	for _, c := range h.LeaderChanges {
		if c.Leader == leader && c.AtMs >= since.UnixMilli() {
			n++
		}
	}
	return n, nil
}

// shownPoints is how many samples the line sel of the page's graphs draws.
func shownPoints(tab context.Context, sel string) int {
	attr, err := chromedp.Run(tab, chromedp.AttributeValue(chromedp.CSS(sel), "data-points"))
	if err != nil || !attr.Exists {
		return 0
	}
	n, _ := strconv.Atoi(attr.Value)
	return n
}

// traffic sends node via identity, server-side and GUID calls for historyPhase, at most
// historyCalls of each, in counts that vary so the graphs have a shape.
func traffic(t *testing.T, c *e2etest.Cluster, via string) {
	t.Helper()
	pace := time.NewTicker(10 * time.Millisecond)
	defer pace.Stop()
	end := time.Now().Add(historyPhase)
	for i := 0; i < historyCalls && time.Now().Before(end); i++ {
		<-pace.C
		count := int64(1 + (i/50)%8)
		if _, err := c.Ids[via].NextIdentity(e2etest.RPCCtx(t), &idnodev1.NextIdentityRequest{Name: "orders", Count: count}); err != nil {
			t.Logf("NextIdentity via %s: %v", via, err) // refused during the election: the graph shows the dip
		}
		if _, err := c.Ids[via].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "carts/", Count: 2}); err != nil {
			t.Fatalf("Generate(carts/) via %s: %v", via, err)
		}
		if i%3 == 0 {
			if _, err := c.Ids[via].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Count: 5}); err != nil {
				t.Fatalf("Generate(GUID) via %s: %v", via, err)
			}
		}
	}
}
