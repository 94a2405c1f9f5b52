package server_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/server"
)

// fenceCallers is how many callers the fencing tests run, spread over every node, and
// fenceCallerPause the virtual time each waits between its rounds: a bubble's clock moves only
// while every goroutine waits, so callers that never paused would hold the two check intervals
// the tests wait for to millions of calls.
const (
	fenceCallers     = 6
	fenceCallerPause = 20 * time.Millisecond
)

// fenceCheckInterval is the replica-check cadence of the fencing tests' clusters.
const fenceCheckInterval = server.MinReplicaCheckInterval

// newFenceCluster is a virtual 3-node cluster that checks its replicas every
// fenceCheckInterval.
func newFenceCluster(t *testing.T) *testCluster {
	return newVirtualTestClusterWith(t, 3, func(sc server.Config) server.Config {
		sc.ReplicaCheckInterval = fenceCheckInterval
		return sc
	})
}

// ledger is every answer the callers were given: identity values and HiLo numbers, each with
// the node that answered it, and whatever any node handed out twice.
type ledger struct {
	mu       sync.Mutex
	calls    atomic.Int64
	ids      map[int64]string
	hilo     map[int64]string
	repeated []string
	// refused counts refusals by the node that sent them and their reason.
	refused map[string]int
}

func (l *ledger) answered(kind string, seen map[int64]string, lo, hi int64, by string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for v := lo; v <= hi; v++ {
		if first, ok := seen[v]; ok {
			l.repeated = append(l.repeated, fmt.Sprintf("%s %d from %s, earlier from %s", kind, v, by, first))
		}
		seen[v] = by
	}
}

func (l *ledger) refusal(by string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused[by+" "+reason.Of(err)]++
}

// loadEveryNode runs fenceCallers callers, each on one node, asking for identities and HiLo
// ranges in turn until the returned stop is called; stop waits for them and returns the
// ledger.
func loadEveryNode(t *testing.T, c *testCluster, tags []string) (*ledger, func() *ledger) {
	l := &ledger{ids: map[int64]string{}, hilo: map[int64]string{}, refused: map[string]int{}}
	load, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for i := range fenceCallers {
		tag := tags[i%len(tags)]
		ids := idnodev1.NewIdServiceClient(c.Dial(t, tag))
		wg.Go(func() {
			for load.Err() == nil {
				ctx, done := context.WithTimeout(load, callTimeout)
				id, err := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "fenced"})
				if err == nil {
					l.answered("identity", l.ids, id.GetFirst(), id.GetLast(), tag)
				} else if load.Err() == nil {
					l.refusal(tag, err)
				}
				r, err := ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "fenced"})
				if err == nil {
					l.answered("hilo", l.hilo, r.GetLow(), r.GetHigh(), tag)
				} else if load.Err() == nil {
					l.refusal(tag, err)
				}
				done()
				l.calls.Add(2)
				time.Sleep(fenceCallerPause)
			}
		})
	}
	return l, func() *ledger {
		cancel()
		wg.Wait()
		return l
	}
}

// waitCalls waits until the callers have made n more calls.
func (l *ledger) waitCalls(t *testing.T, what string, n int64) {
	t.Helper()
	target := l.calls.Load() + n
	waitFor(t, what, convergeTimeout, func() (bool, string) {
		return l.calls.Load() >= target, fmt.Sprintf("%d calls of %d", l.calls.Load(), target)
	})
}

// waitFenced waits, within two replica-check intervals, until node leader's Status says the
// cluster fenced diverged, and returns the index it was fenced at.
func waitFenced(t *testing.T, c *testCluster, diverged string, flipped time.Time) uint64 {
	t.Helper()
	var at uint64
	twoCadences := 2 * fenceCheckInterval
	waitFor(t, "the cluster fences "+diverged, twoCadences, func() (bool, string) {
		st, err := c.Status(diverged)
		if err != nil {
			return false, err.Error()
		}
		for _, ns := range st.GetNodes() {
			if ns.GetTag() == diverged {
				at = ns.GetDivergedAtIndex()
			}
		}
		return at > 0, fmt.Sprintf("%s: diverged at %d", diverged, at)
	})
	if took := time.Since(flipped); took > twoCadences {
		t.Fatalf("%s was fenced %v after its state diverged, more than two check intervals", diverged, took)
	}
	return at
}

// refusesAsDiverged checks that node tag refuses identities, HiLo ranges and server-side IDs
// with REPLICA_DIVERGED, and still answers Status.
func refusesAsDiverged(t *testing.T, c *testCluster, tag string) {
	t.Helper()
	ids := idnodev1.NewIdServiceClient(c.Dial(t, tag))
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	_, errID := ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "fenced"})
	_, errHiLo := ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "fenced"})
	_, errGen := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders/"})
	for what, err := range map[string]error{"NextIdentity": errID, "NextHiLo": errHiLo, "Generate": errGen} {
		if status.Code(err) != codes.Unavailable || reason.Of(err) != reason.ReplicaDiverged {
			t.Fatalf("%s on fenced node %s: %v (reason %q), want UNAVAILABLE REPLICA_DIVERGED", what, tag, err, reason.Of(err))
		}
	}
	if _, err := c.Status(tag); err != nil {
		t.Fatalf("Status on fenced node %s: %v", tag, err)
	}
}

// checkLedger fails the test if any answer was handed out twice, or nothing was answered.
func checkLedger(t *testing.T, l *ledger) {
	t.Helper()
	if len(l.repeated) > 0 {
		t.Fatalf("%d answers repeated, the first: %v", len(l.repeated), l.repeated[:min(5, len(l.repeated))])
	}
	if len(l.ids) == 0 || len(l.hilo) == 0 {
		t.Fatalf("the callers were answered %d identities and %d HiLo numbers", len(l.ids), len(l.hilo))
	}
	t.Logf("%d calls, %d identities and %d HiLo numbers answered once each; refusals %v", l.calls.Load(), len(l.ids), len(l.hilo), l.refused)
}

// Under load through every node, a follower whose state was changed outside the log is fenced
// by the leader's own cadence within two check intervals, refuses every call that needs the
// state with REPLICA_DIVERGED, and no answer is ever repeated. Once an operator removes it,
// wipes it and joins it again, the new member holds the majority's digest and serves.
func TestADivergedFollowerIsFencedUntilRebuilt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newFenceCluster(t)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		diverged := c.Tags()[0]
		if diverged == leader {
			diverged = c.Tags()[1]
		}
		l, stop := loadEveryNode(t, c, c.Tags())
		l.waitCalls(t, "load before the divergence", 200)
		divergeCounter(t, c.Node(diverged))
		waitFenced(t, c, diverged, time.Now())
		refusesAsDiverged(t, c, diverged)
		l.waitCalls(t, "load after the fence", 200)
		checkLedger(t, stop())
		if l.refused[diverged+" "+reason.ReplicaDiverged] == 0 {
			t.Fatalf("the callers on %s met no REPLICA_DIVERGED: %v", diverged, l.refused)
		}

		rebuilt := c.rebuild(t, diverged, leader)
		rc := checkReplicas(t, idnodev1.NewClusterServiceClient(c.Dial(t, leader)))
		if rc.GetMismatches() != 0 || verdicts(rc)[rebuilt] != "agrees" {
			t.Fatalf("after the rebuild: %v", rc)
		}
		l, stop = loadEveryNode(t, c, []string{rebuilt})
		l.waitCalls(t, "load on the rebuilt node", 100)
		checkLedger(t, stop())
		if len(l.refused) > 0 {
			t.Fatalf("the rebuilt node %s refused: %v", rebuilt, l.refused)
		}
	})
}

// A leader whose state diverged fences itself at its check (the majority's digest is the
// others'), hands the leadership over, and refuses calls; the new leader's answers never
// repeat one given before, and no sound member passes the fenced leader's refusal on as its own.
func TestADivergedLeaderStepsDown(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newFenceCluster(t)
		old := c.waitLeader(convergeTimeout, c.Tags()...)
		l, stop := loadEveryNode(t, c, c.Tags())
		l.waitCalls(t, "load before the divergence", 200)
		divergeCounter(t, c.Node(old))
		waitFenced(t, c, old, time.Now())
		var leader string
		waitFor(t, "a leader other than the fenced "+old, convergeTimeout, func() (bool, string) {
			leader = c.waitLeader(convergeTimeout, c.Tags()...)
			return leader != old, "the fenced node leads"
		})
		refusesAsDiverged(t, c, old)
		l.waitCalls(t, "load under the new leader", 200)
		checkLedger(t, stop())
		for _, tag := range c.Tags() {
			if n := l.refused[tag+" "+reason.ReplicaDiverged]; tag != old && n > 0 {
				t.Fatalf("sound member %s passed the fenced leader's REPLICA_DIVERGED on %d times: %v", tag, n, l.refused)
			}
		}
		st, err := c.Status(leader)
		if err != nil {
			t.Fatal(err)
		}
		if rc := st.GetReplicaCheck(); rc != nil && verdicts(rc)[old] == "agrees" {
			t.Fatalf("the new leader's check finds the fenced node agreeing: %v", rc)
		}
	})
}
