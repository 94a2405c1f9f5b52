package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/node/metrics"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/helpers/jsonlog"
	"github.com/idnode/idnode/test/helpers/logbuf"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
)

// clockProbe is how often the test's nodes measure their clocks: short, so a moved clock shows
// within a test's patience.
const clockProbe = 50 * time.Millisecond

// skewedNode is one node of the clock test: a clock the test moves, its metrics on a
// loopback port, and its log in JSON.
type skewedNode struct {
	skew        atomic.Int64 // added to the wall clock, in nanoseconds
	metrics     *metrics.Metrics
	metricsAddr string
	log         logbuf.Buffer
}

func (n *skewedNode) now() time.Time { return time.Now().Add(time.Duration(n.skew.Load())) }

// A follower whose clock is set back five seconds (through the clock the node takes for tests,
// server.Config.Now) shows the offset from the leader in idnode_clock_offset_seconds and in
// Status (its own and the leader's), logs the
// warning, refuses numeric IDs (its last ID's time is now ahead of its clock by more than the
// second it may borrow) and counts them in idnode_numeric_clock_behind_total; the alert rules
// fire on series of the values it served. Its clock set right, the gauge and the log say so.
func TestAFollowersClockSetBackShowsInMetricsLogsAndAlerts(t *testing.T) {
	t.Parallel()
	nodes := map[string]*skewedNode{}
	c := newTestClusterConfigured(t, 3, func(nc *node.Config) {
		sn := &skewedNode{metrics: metrics.New(), metricsAddr: loopback.FreeAddr(t)}
		nodes[nc.Tag] = sn
		// Start adds the node's tag to its logger, so this one has none of its own.
		nc.Logger = slog.New(slog.NewJSONHandler(&sn.log, &slog.HandlerOptions{Level: slog.LevelInfo}))
		nc.ServerConfig = func(sc server.Config) server.Config {
			sc.Now, sc.Observer, sc.ClockProbeInterval = sn.now, sn.metrics, clockProbe
			return sc
		}
		nc.ServeMetrics = func(_ *grpc.Server, raft *cluster.Node, _ func() *idnodev1.Headroom, log *slog.Logger) (func(), error) {
			sn.metrics.WatchRaft(raft)
			return sn.metrics.Serve(sn.metricsAddr, false, log)
		}
	})
	leader := c.waitLeader(convergeTimeout, c.Tags()...)
	tag := without(c.Tags(), leader)[0]
	f := nodes[tag]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ids := idnodev1.NewIdServiceClient(c.Dial(t, tag))
	mustNumeric(t, ctx, ids, 100) // the follower's minter holds a lease and has minted at its clock

	offsetNear := func(n *skewedNode, want float64) {
		t.Helper()
		poll.Until(t, fmt.Sprintf("idnode_clock_offset_seconds near %v", want), 10*time.Second, clockProbe, func() error {
			got, err := scrapeValue(n.metricsAddr, "idnode_clock_offset_seconds")
			if err != nil || math.Abs(got-want) > 0.25 {
				return fmt.Errorf("gauge %v (%v)", got, err)
			}
			return nil
		})
	}
	offsetNear(f, 0)
	offsetNear(nodes[leader], 0)

	// Five seconds back: the last ID's time is then ahead of the follower's clock by far more
	// than the second its minter may borrow, however long the test takes to ask.
	f.skew.Store(int64(-5 * time.Second))
	_, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Numeric: true, Count: 1})
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "clock is behind") {
		t.Fatalf("Generate(numeric) five seconds back = %v; want UNAVAILABLE, clock is behind", err)
	}
	offsetNear(f, -5)
	statusSays(t, c, tag, map[string]float64{tag: -5, leader: 0})
	statusSays(t, c, leader, map[string]float64{tag: -5, leader: 0})
	warning := waitLogLine(t, &f.log, slog.LevelWarn, "this node's clock is off the leader's")
	if off, _ := warning["offset_seconds"].(float64); math.Abs(off+5) > 0.25 || warning["leader"] != leader || warning["node"] != tag {
		t.Errorf("the warning says %v; want offset_seconds near -5, leader %s, node %s", warning, leader, tag)
	}
	refused, err := scrapeValue(f.metricsAddr, `idnode_numeric_clock_behind_total{database="default"}`)
	if err != nil || refused != 1 {
		t.Fatalf("idnode_numeric_clock_behind_total = %v (%v), want 1", refused, err)
	}
	offset, err := scrapeValue(f.metricsAddr, "idnode_clock_offset_seconds")
	if err != nil {
		t.Fatal(err)
	}
	alertsFireOn(t, tag, offset, refused)

	f.skew.Store(0)
	offsetNear(f, 0)
	waitLogLine(t, &f.log, slog.LevelInfo, "this node's clock is back within --clock-offset-warn")
	for line := range strings.Lines(f.log.String()) {
		if err := jsonlog.Check([]byte(line)); err != nil {
			t.Errorf("log line: %v", err)
		}
	}
}

// statusSays waits until Status, asked of node from, gives each node of want the clock offset
// want says, within a quarter of a second: a node's own from itself, another's from its answer
// to the reachability probe.
func statusSays(t *testing.T, c *testCluster, from string, want map[string]float64) {
	t.Helper()
	poll.Until(t, fmt.Sprintf("Status from %s: clock offsets %v", from, want), 10*time.Second, clockProbe, func() error {
		st, err := c.Status(from)
		if err != nil {
			return err
		}
		for _, ns := range st.GetNodes() {
			w, ok := want[ns.GetTag()]
			if ok && (!ns.GetClockOffsetMeasured() || math.Abs(ns.GetClockOffsetSeconds()-w) > 0.25) {
				return fmt.Errorf("node %s: offset %v, measured %v", ns.GetTag(), ns.GetClockOffsetSeconds(), ns.GetClockOffsetMeasured())
			}
		}
		return nil
	})
}

// alertsFireOn runs promtool's rule tests on deploy/prometheus/alerts.yml with series of the
// values node tag served: an offset that stays, and a refusal count that climbs by refused a
// minute. IdnodeClockOffsetHigh and IdnodeNumericClockBehind must fire for it, and nothing for
// a node at 0: the firing alerts (ALERTS) are those two.
func alertsFireOn(t *testing.T, tag string, offset, refused float64) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is not installed (Debian: prometheus); CI runs the alert rules with it")
		}
		t.Skip("promtool is not installed (Debian: prometheus)")
	}
	rules, err := filepath.Abs("../deploy/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf(`rule_files: [%[1]q]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: idnode_clock_offset_seconds{instance=%[2]q}
        values: %[3]vx20
      - series: idnode_clock_offset_seconds{instance="quiet"}
        values: 0x20
      - series: idnode_numeric_clock_behind_total{instance=%[2]q,database="default"}
        values: 0+%[4]vx20
      - series: idnode_numeric_clock_behind_total{instance="quiet",database="default"}
        values: 0x20
    promql_expr_test:
      - expr: ALERTS{alertstate="firing"}
        eval_time: 15m
        exp_samples:
          - labels: 'ALERTS{alertname="IdnodeClockOffsetHigh",alertstate="firing",instance=%[2]q,severity="warning"}'
            value: 1
          - labels: 'ALERTS{alertname="IdnodeNumericClockBehind",alertstate="firing",database="default",instance=%[2]q,severity="warning"}'
            value: 1
`, rules, tag, offset, refused)
	file := filepath.Join(t.TempDir(), "clock_test.yml")
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "test", "rules", file).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules on the node's values: %v\n%s\n%s", err, out, spec)
	}
}

// scrapeValue reads one series' value from the /metrics at addr; series is the name and
// labels as the text format writes them.
func scrapeValue(addr, series string) (float64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in /metrics", series)
}

// waitLogLine waits for a line of level whose message starts with msg in log, and returns it.
func waitLogLine(t *testing.T, log *logbuf.Buffer, level slog.Level, msg string) map[string]any {
	t.Helper()
	var found map[string]any
	poll.Until(t, fmt.Sprintf("a %v log line %q", level, msg), 10*time.Second, clockProbe, func() error {
		for line := range strings.Lines(log.String()) {
			var l map[string]any
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				return err
			}
			if m, _ := l["msg"].(string); strings.HasPrefix(m, msg) && l["level"] == level.String() {
				found = l
				return nil
			}
		}
		return io.EOF
	})
	return found
}
