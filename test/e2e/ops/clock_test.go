package ops

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/testclock"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

const (
	// testClockTag is the build tag of the daemon whose wall clock a test can step
	// (cmd/idnode/testclock_on.go), and testClockFileEnv the variable naming its offset file.
	testClockTag     = "testclock"
	testClockFileEnv = "IDNODE_TEST_CLOCK_FILE"
	// clockMeasureWait bounds how long a step takes to show in a node's gauge: a probe every
	// DefaultClockProbeInterval, and a probe that met the step half-way (its round trip holds
	// the step, so it is off) needs the next one.
	clockMeasureWait = 4*server.DefaultClockProbeInterval + 10*time.Second
	// clockTolerance is the measurement's error bound: half the round trip of a probe, and a
	// probe is given up after 300 ms (server's probeTimeout), so a measurement taken is
	// within 150 ms.
	clockTolerance = 150 * time.Millisecond
	// clockBehindCalls bounds the numeric calls made while the stepped-back clock catches up.
	clockBehindCalls = 2000
	// clockNumericCount is how many numeric IDs each of those calls asks for.
	clockNumericCount = 10
)

// clockWarning is the message a node logs when its clock is past --clock-offset-warn.
const clockWarning = "this node's clock is off the leader's by more than --clock-offset-warn"

// TestClockStepShowsInGaugeLogAndAlerts steps one follower's wall clock in a real cluster of
// the test-clock build: +2 s, past the --clock-offset-warn of 500 ms the nodes run with. The
// follower's idnode_clock_offset_seconds shows the step within the measurement's error, its
// log warns, and the leader's and the other follower's offsets stay near 0. Then its clock
// steps back 3 s while it mints numeric IDs: its minter refuses for the second or two the
// clock needs to pass the last ID's time (idnode_numeric_clock_behind_total climbs), no ID
// repeats or goes back, and the gauge shows -1 s. Last, the scraped values are fed to deploy/prometheus's rules by
// promtool: IdnodeClockOffsetHigh fires for the stepped node alone, and
// IdnodeNumericClockBehind's condition holds for it alone (pending: it fires only when the
// refusals last 10 minutes).
func TestClockStepShowsInGaugeLogAndAlerts(t *testing.T) {
	t.Parallel()
	needPromtool(t) // before the cluster, so a machine without it skips at once
	bin := e2etest.BuildIdnodeTagged(t, testClockTag)
	dir := t.TempDir()
	clockFile, metricsAddr := map[string]string{}, map[string]string{}
	for _, tag := range e2etest.ClusterTags {
		clockFile[tag] = filepath.Join(dir, tag+".offset")
		metricsAddr[tag] = e2etest.FreeAddr(t)
	}
	c := e2etest.StartClusterWith(t, func(tag string) e2etest.NodeOpts {
		return e2etest.NodeOpts{Binary: bin, Env: []string{testClockFileEnv + "=" + clockFile[tag]},
			Extra: []string{"--metrics-addr", metricsAddr[tag], "--clock-offset-warn", "500ms"}}
	})
	stepped := c.Others(c.Leader())[0]
	offsetOf := func(tag string) float64 {
		return e2etest.MetricValue(t, e2etest.Scrape(t, metricsAddr[tag]), "idnode_clock_offset_seconds")
	}
	// waitOffsets polls until every node's gauge is its wanted offset within the error; the
	// unstepped ones also show the gauge is measured, not NaN. Offsets are measured against
	// the leader of the moment: an election on a busy machine may move the leadership between
	// the unstepped nodes, which share the machine's clock, and changes nothing; one that
	// makes the stepped node the leader puts the others off by its step, so the leadership is
	// handed back to an unstepped node, and the poll goes on.
	waitOffsets := func(what string, want map[string]time.Duration) map[string]float64 {
		t.Helper()
		got := map[string]float64{}
		e2etest.Eventually(t, clockMeasureWait, what, func() error {
			var off []string
			for _, tag := range e2etest.ClusterTags {
				got[tag] = offsetOf(tag)
				if w := want[tag].Seconds(); math.IsNaN(got[tag]) || math.Abs(got[tag]-w) > clockTolerance.Seconds() {
					off = append(off, fmt.Sprintf("%s %v (want %v)", tag, got[tag], w))
				}
			}
			if len(off) > 0 {
				leader := c.Leader()
				if _, ok := want[leader]; ok {
					c.LeadFromAnother(leader)
				}
				return fmt.Errorf("offsets off: %s (the leader was %s)", strings.Join(off, ", "), leader)
			}
			return nil
		})
		return got
	}
	waitOffsets("every node measured, near 0", nil)
	if strings.Contains(c.Node(stepped).Logs.String(), clockWarning) {
		t.Fatalf("node %s warned of its clock before it was stepped", stepped)
	}

	// +2 s.
	step := 2 * time.Second
	if err := testclock.Write(clockFile[stepped], step); err != nil {
		t.Fatal(err)
	}
	offsets := waitOffsets("node "+stepped+" 2s ahead, the others near 0", map[string]time.Duration{stepped: step})
	e2etest.Eventually(t, clockMeasureWait, "node "+stepped+" warns of its clock", func() error {
		return wantClockWarning(c.Node(stepped).Logs.String(), step)
	})
	for _, tag := range c.Others(stepped) {
		if err := clockWarningsAgainst(c.Node(tag).Logs.String(), stepped); err != nil {
			t.Errorf("node %s, whose clock was not stepped: %v", tag, err)
		}
	}

	// −3 s while node stepped mints numeric IDs: first some at +2 s, so the minter's last ID
	// carries the stepped-ahead time, then the step back and calls until the clock passes it.
	ids := c.Ids[stepped]
	behind := func() map[string]float64 {
		out := map[string]float64{}
		for _, tag := range e2etest.ClusterTags {
			out[tag] = e2etest.MetricValue(t, e2etest.Scrape(t, metricsAddr[tag]), `idnode_numeric_clock_behind_total{database="default"}`)
		}
		return out
	}
	var minted []int64
	mint := func() error {
		resp, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Numeric: true, Count: clockNumericCount})
		if err != nil {
			return err
		}
		for _, s := range resp.GetIds() {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("numeric ID %q: %v", s, err)
			}
			minted = append(minted, v)
		}
		return nil
	}
	// The counters are read first: the step back must follow the last ID at once, since the
	// minter refuses only until the clock is within a second of that ID's time.
	behindBefore := behind()
	for range 3 {
		// A refusal for want of a leader (the first call takes the node's worker lease through
		// Raft) is asked again, as a client would: a repeat costs a gap at most.
		if err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) error { return mint() }); err != nil {
			t.Fatalf("Generate numeric via %s at +2s: %v", stepped, err)
		}
	}
	back := step - 3*time.Second
	if err := testclock.Write(clockFile[stepped], back); err != nil {
		t.Fatal(err)
	}
	var refused, after int
	for i := 0; ; i++ {
		if i == clockBehindCalls {
			t.Fatalf("%d numeric calls after the step back: %d refused for the clock, %d answered after; want refusals, then answers once the clock passed the last ID", i, refused, after)
		}
		err := mint()
		switch {
		case err == nil && refused > 0:
			after++
		case err == nil:
		case status.Code(err) == codes.Unavailable && strings.Contains(err.Error(), "clock is behind"):
			refused++
		default:
			t.Fatalf("Generate numeric via %s after the step back: %v", stepped, err)
		}
		if after > 0 {
			break
		}
		time.Sleep(e2etest.PollInterval) // pace the calls while the clock catches up
	}
	behindAfter := behind()
	if got := behindAfter[stepped] - behindBefore[stepped]; got < float64(refused) {
		t.Errorf("idnode_numeric_clock_behind_total of node %s rose by %v over %d refused calls; want at least one a call", stepped, got, refused)
	}
	for _, tag := range c.Others(stepped) {
		if behindAfter[tag] != behindBefore[tag] {
			t.Errorf("idnode_numeric_clock_behind_total of node %s, which minted nothing, moved %v → %v", tag, behindBefore[tag], behindAfter[tag])
		}
	}
	for i := 1; i < len(minted); i++ {
		if minted[i] <= minted[i-1] {
			t.Fatalf("numeric ID %d of node %s is %d, after %d: an ID repeated or went back across the clock's step", i, stepped, minted[i], minted[i-1])
		}
	}
	// The gauge follows the clock back too.
	waitOffsets("node "+stepped+" 1s behind, the others near 0", map[string]time.Duration{stepped: back})
	t.Logf("node %s: %d numeric IDs, %d calls refused for the clock after the step back, offsets %v, clock_behind %v → %v",
		stepped, len(minted), refused, offsets, behindBefore, behindAfter)

	promtoolTestRules(t, clockAlertTests(offsets, behindBefore, behindAfter, stepped))
}

// logOffset finds the offset_seconds of a log line (slog's text handler), and logLeader the
// leader it was measured against.
var (
	logOffset = regexp.MustCompile(`offset_seconds=(\S+)`)
	logLeader = regexp.MustCompile(`\bleader=(\S+)`)
)

// clockWarningsAgainst is nil when every clock warning in an unstepped node's logs was measured
// against node stepped: one that led for a while after an election is rightly off by its step.
func clockWarningsAgainst(logs, stepped string) error {
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, clockWarning) {
			continue
		}
		if m := logLeader.FindStringSubmatch(line); m == nil || m[1] != stepped {
			return fmt.Errorf("it warned of its clock against another leader: %s", line)
		}
	}
	return nil
}

// wantClockWarning is nil when logs hold the clock warning with an offset near step.
func wantClockWarning(logs string, step time.Duration) error {
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, clockWarning) || !strings.Contains(line, "level=WARN") {
			continue
		}
		m := logOffset.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("the warning names no offset: %s", line)
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return fmt.Errorf("the warning's offset %q: %v", m[1], err)
		}
		if math.Abs(v-step.Seconds()) <= clockTolerance.Seconds() {
			return nil
		}
	}
	return errors.New("no warning of an offset near the step yet")
}

// clockAlertTests is a promtool test of the idnode-clock rules on the scraped values, each
// node its own instance. A gauge is held at its scraped value, as Prometheus sees it while
// the clock stays off: past the rule's 5 minutes IdnodeClockOffsetHigh fires, for node
// stepped alone. The refusal counters go from their value before the step back to their
// value after it: IdnodeNumericClockBehind is pending for node stepped alone (ALERTS, its
// state, is what promtool's expression test reads; the alert itself waits 10 minutes).
func clockAlertTests(offsets, behindBefore, behindAfter map[string]float64, stepped string) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var b strings.Builder
	b.WriteString("tests:\n  - interval: 1m\n    input_series:\n")
	for _, tag := range e2etest.ClusterTags {
		fmt.Fprintf(&b, "      - series: idnode_clock_offset_seconds{job=\"idnode\",instance=%q}\n        values: %sx10\n", tag, num(offsets[tag]))
		fmt.Fprintf(&b, "      - series: idnode_numeric_clock_behind_total{job=\"idnode\",instance=%q,database=\"default\"}\n        values: %s %s\n",
			tag, num(behindBefore[tag]), num(behindAfter[tag]))
	}
	fmt.Fprintf(&b, `    promql_expr_test:
      - expr: ALERTS{alertname="IdnodeClockOffsetHigh"}
        eval_time: 7m
        exp_samples:
          - labels: ALERTS{alertname="IdnodeClockOffsetHigh",alertstate="firing",instance=%q,job="idnode",severity="warning"}
            value: 1
      - expr: ALERTS{alertname="IdnodeNumericClockBehind"}
        eval_time: 2m
        exp_samples:
          - labels: ALERTS{alertname="IdnodeNumericClockBehind",alertstate="pending",database="default",instance=%q,job="idnode",severity="warning"}
            value: 1
`, stepped, stepped)
	return b.String()
}
