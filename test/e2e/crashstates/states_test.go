package crashstates

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

const (
	// pointsEnv says how many fsync points to explore: unset, ciPoints; "all", every one; a
	// number, that many. scripts/crashstates.sh sets it to "all".
	pointsEnv = "IDNODE_CRASHSTATES"
	ciPoints  = 8
	// progressEvery is how many states a run explores between two progress lines.
	progressEvery = 100
	// deadlineMargin is the time kept back from the test's deadline for the last state and
	// the cleanup.
	deadlineMargin = time.Minute
	// brokenTag builds idnode without the directory sync after WriteFile's rename
	// (internal/durablefile/renamesync_off.go).
	brokenTag = "powercut_norenamesync"
)

var errBadPoints = errors.New("crashstates: bad " + pointsEnv)

// pointsToExplore is how many fsync points of total to explore, from pointsEnv.
func pointsToExplore(total int) (int, error) {
	v := os.Getenv(pointsEnv)
	switch v {
	case "":
		return min(ciPoints, total), nil
	case "all":
		return total, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w %q: want \"all\" or a count of at least 1", errBadPoints, v)
	}
	return min(n, total), nil
}

// spread picks n of points, evenly, in order.
func spread(points []int, n int) []int {
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, points[(2*i+1)*len(points)/(2*n)])
	}
	return out
}

// exploration is the tally of a run.
type exploration struct {
	states, points, totalPoints int
	problems                    []string
	refusals                    int
	dropped                     lossyfs.Report
	took                        time.Duration
}

// exploreStates explores both cuts at n fsync points spread evenly over the recording, in
// order, and stops early at the first broken promise when stopAtFirst.
func (r *recorded) exploreStates(n int, stopAtFirst bool) exploration {
	r.t.Helper()
	begin := time.Now()
	all := r.fsyncPoints()
	if len(all) == 0 {
		r.t.Fatal("the recording holds no fsync: there is no state to explore")
	}
	e := exploration{totalPoints: len(all)}
	deadline, hasDeadline := r.t.Deadline()
	for _, p := range spread(all, n) {
		for _, c := range []cut{cutNode, cutCluster} {
			if hasDeadline && time.Until(deadline) < deadlineMargin {
				r.t.Fatalf("explored %d states at %d of %d fsync points before the test's deadline: run with a longer -timeout", e.states, e.points, n)
			}
			s := state{point: p, cut: c}
			o := r.explore(s)
			e.states++
			if e.states%progressEvery == 0 {
				fmt.Printf("crashstates progress: explored=%d of %d, %d broken promises, %v\n", e.states, 2*n, len(e.problems), time.Since(begin).Round(time.Second))
			}
			e.refusals += len(o.refused)
			e.dropped.Merge("", o.dropped)
			for _, pr := range o.problems {
				pr = fmt.Sprintf("%v (%v): %s", s, r.ops[p], pr)
				e.problems = append(e.problems, pr)
				fmt.Println("crashstates broken promise: " + pr) // at once: a full run takes long
			}
			if stopAtFirst && len(e.problems) > 0 {
				e.points++
				e.took = time.Since(begin)
				return e
			}
		}
		e.points++
	}
	e.took = time.Since(begin)
	return e
}

// report prints the run's line and appends it to $IDNODE_CHAOS_SUMMARY.
func (r *recorded) report(name string, e exploration) {
	r.t.Helper()
	e2etest.Summarize(r.t, fmt.Sprintf("crashstates run=%s explored=%d fsync_points=%d/%d ops=%d workload_acks=%d broken_promises=%d refused_starts=%d workload=%v explore=%v dropped: %s",
		name, e.states, e.points, e.totalPoints, len(r.ops), r.led.Acked(), len(e.problems), e.refusals,
		r.took.Round(time.Second), e.took.Round(time.Second), e.dropped.Summary()))
}

// TestCrashStatesAtFsyncPoints records the workload and explores the states a power cut just
// after its fsyncs would leave: ciPoints of them spread over the recording, or as many as
// IDNODE_CRASHSTATES says.
func TestCrashStatesAtFsyncPoints(t *testing.T) {
	r := recordWorkload(t, "")
	n, err := pointsToExplore(len(r.fsyncPoints()))
	if err != nil {
		t.Fatal(err)
	}
	e := r.exploreStates(n, false)
	r.report("this-tree", e)
	for _, p := range e.problems {
		t.Error(p)
	}
}

// TestCrashStatesCatchAMissingRenameSync shows the exploration can fail: with idnode built
// without the directory sync after a rename, some explored state must break a promise.
func TestCrashStatesCatchAMissingRenameSync(t *testing.T) {
	r := recordWorkload(t, e2etest.BuildIdnodeTagged(t, brokenTag))
	n, err := pointsToExplore(len(r.fsyncPoints()))
	if err != nil {
		t.Fatal(err)
	}
	e := r.exploreStates(n, true)
	r.report(brokenTag, e)
	if len(e.problems) == 0 {
		t.Fatalf("%d states explored with idnode built -tags %s, and every one kept every promise: the exploration cannot tell", e.states, brokenTag)
	}
	t.Logf("caught: %s", strings.Join(e.problems, "\n"))
}
