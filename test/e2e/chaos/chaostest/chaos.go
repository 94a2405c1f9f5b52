package chaostest

// The chaos suite: a compose cluster (deploy/'s three containers, or five in three regions:
// chaos_cluster.go; Raft on its own network), clients of every strategy running throughout,
// and faults injected with the docker CLI — the leader or a follower cut off the Raft
// network (once with claimers competing for IDs the identities must skip, chaos_claims.go),
// a 2/1 split, SIGKILL of the leader or a
// follower, two nodes frozen, all three restarted at once, a rolling restart, a node whose
// volume is wiped coming back with its old flags, adds for a tag or address in use, a join
// that fails half-way, a lone node granting HiLo ranges from its pool (chaos_hilo.go),
// a seeded random mix of them (test/e2e/chaos/operator), a node whose data dir goes back to
// an older copy of itself (chaos_rollback.go), fiscal series numbered through an
// isolated and a killed leader (chaos_series.go), numeric IDs minted in processes
// under worker leases through the same two faults (chaos_flake.go), opaque identities issued
// through a killed leader and read back to their values with Explain (chaos_opaque.go), and a two-node region of
// the five cut off from the rest (test/e2e/chaos/regions). After each schedule the whole
// history is checked: no ID handed out twice (nor an identity equal to a claimed ID), identity
// counters linearizable, HiLo ranges disjoint (in any order: each node grants from its own
// pool), etags increasing on every node across its restarts, no acknowledged identity or
// HiLo number above its counter or Max after recovery, and no member's state digest differing
// at any replica check made during the schedule (chaos_replicas.go).
// One line per schedule:
//
//	schedule=leader-isolated ids=9137 identities=4242 hilo_ranges=61 duplicates=0 linearizable=true unavailable_ms=842 … replica_checks=11 mismatches=0
//
//	go test ./test/e2e/chaos/... -v                               # all schedules (skipped under -short)
//	go test ./test/e2e/chaos/crash -run 'Chaos/pause-two' -v      # one
//
// Without a Docker engine the suite skips, or fails when CI=true. Each schedule gets a fresh
// cluster (compose down -v, up), so a schedule's history starts from empty counters.
//
// A partition heals with every node back at its old address on the raft network, as real
// partitions do. IDNODE_CHAOS_NEW_IPS=1 moves a reconnected node to a new address instead;
// follower-isolated then passes too: the node's pooled connection to the leader, bound to the
// old address, goes silent and is replaced (internal/forward/link.go), so the node relays
// again within a second of the heal, where it once failed for over a minute.
// IDNODE_CHAOS_SUMMARY=<file> appends the schedule lines to that file (.ci/run prints it).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// Bounds of the chaos suite (on top of chaos_load.go's per-call ones).
const (
	// chaosSuiteBudget is what a package's schedules are expected to take: a package waiting
	// for a chaos slot keeps that much, and chaosSuiteMargin, before its deadline (see
	// chaosLockWait). The schedules are split over packages (test/e2e/chaos/*) of at most
	// five, so that two of them, one waiting for the other's slot, fit go test's 10 minutes.
	// Each schedule ends with a replica check every live node answers (chaos_replicas.go), and
	// a restarted node compares its state before it serves: four of the operator package's
	// schedules took 3m50s under a CI run's load, so the budget is 4m30s.
	chaosSuiteBudget = 4*time.Minute + 30*time.Second
	// chaosSuiteMargin is one schedule and the teardown: no schedule starts later than this
	// before the test binary's deadline (lastScheduleStart).
	chaosSuiteMargin   = 2*time.Minute + 30*time.Second
	chaosLockWaitMax   = 10 * time.Minute // the longest wait for a chaos slot (see chaosLockWait)
	chaosProgressOps   = 500              // identity operations acknowledged per load phase
	chaosProgressLocal = 15               // server-side IDs and GUIDs per node and phase
	chaosProgressHiLo  = 2                // HiLo ranges per phase
	chaosProgressWait  = 45 * time.Second // one load phase at most (see Progress)
	chaosStallWindow   = 15 * time.Second // at the end of a phase short of its target, each kind advances within this
	ChaosRecoverWait   = 60 * time.Second // after a heal or restart, until every node serves every strategy
	chaosLeaderWait    = 20 * time.Second // until Status names a leader
	chaosProbes        = 3                // identity calls that a minority node must refuse
	chaosProbeDeadline = 10 * time.Second // deadline of such a call: a refusal must come well before it
	chaosRefusalLimit  = 2 * time.Second  // a minority refuses within about one election timeout; 2 s at most
	chaosLocalWait     = 5 * time.Second  // a server-side ID or GUID from a minority node
	chaosCheckTimeout  = 60 * time.Second // linearizability search
)

// ChaosSchedule is one fault scenario. run is called with the clients already running and
// one load phase done; it injects the fault, runs the load phase "during" it, and heals. The
// recovery wait, the load phase after it and the checks are common to all.
type ChaosSchedule struct {
	Name string
	Run  func(r *ChaosRun)
}

// RunChaosSuite runs schedules one after the other, each on a fresh cluster as described
// (DeployCluster: deploy/docker-compose.yml's three nodes).
func RunChaosSuite(t *testing.T, cluster *ChaosCluster, schedules []ChaosSchedule) {
	if testing.Short() {
		t.Skip("chaos suite skipped under -short: it drives a Docker compose cluster for minutes")
	}
	slot, release, err := e2etest.ChaosLock(chaosLockWait(t))
	if errors.Is(err, e2etest.ErrChaosLockBusy) {
		chaosPrereq(t, "%v", err)
	} else if err != nil {
		t.Fatalf("chaos lock: %v", err)
	}
	t.Cleanup(release)
	cluster = cluster.inSlot(slot)
	d := chaosDockerFor(t, cluster)
	t.Logf("chaos slot: compose project %s, gRPC on %s…", slot.Project(), cluster.nodes[0].addr)

	begin := time.Now()
	// Whatever an earlier, interrupted run left behind goes first; then the published ports
	// must be free (a `make cluster-up` cluster holds the same ones).
	t.Cleanup(func() {
		if out, err := d.down(); err != nil {
			t.Errorf("tearing the cluster down: %v\n%s", err, out)
		}
	})
	if out, err := d.down(); err != nil {
		t.Fatalf("removing compose project %s: %v\n%s", d.project, err, out)
	}
	if busy := cluster.portsInUse(); len(busy) > 0 {
		chaosPrereq(t, "%s already in use: the suite publishes its cluster there (`make cluster-down` stops a `make cluster-up` cluster)", strings.Join(busy, ", "))
	}
	d.buildImage(t)
	e2etest.BuildFlakeMinter(t) // the flake schedule's program: built here, outside the budget
	scheduled := time.Now()
	lastStart, bounded := lastScheduleStart(t)
	conns := chaosDial(t, cluster)
	for _, sc := range schedules {
		if bounded && time.Now().After(lastStart) {
			t.Errorf("chaos suite: %v spent on schedules; schedule %s and later not run: less than %v (one schedule and the teardown) is left before the test binary's deadline", time.Since(scheduled).Round(time.Second), sc.Name, chaosSuiteMargin)
			break
		}
		t.Run(sc.Name, func(t *testing.T) { runChaosSchedule(t, d, conns, sc) })
	}
	t.Logf("chaos suite: %v", time.Since(begin).Round(time.Second))
}

// lastScheduleStart is the last moment a schedule may start: one schedule and the teardown
// (chaosSuiteMargin) before the test binary's deadline (go test's -timeout), so that a
// package whose schedules run slow on a loaded machine reports the ones it could not run
// rather than being killed mid-schedule. A run with no deadline runs every schedule.
func lastScheduleStart(t *testing.T) (time.Time, bool) {
	deadline, ok := t.Deadline()
	return deadline.Add(-chaosSuiteMargin), ok
}

// chaosLockWait is how long a suite waits for a chaos slot. The chaos packages of one
// `go test ./...` run share e2etest.ChaosSlots compose projects, so each waits while its
// schedules still fit before the test binary's deadline (-timeout, 10 minutes by default);
// a run with no deadline waits chaosLockWaitMax.
func chaosLockWait(t *testing.T) time.Duration {
	deadline, ok := t.Deadline()
	if !ok {
		return chaosLockWaitMax
	}
	return max(0, min(chaosLockWaitMax, time.Until(deadline)-chaosSuiteBudget-chaosSuiteMargin))
}

// ChaosRun is one schedule in progress.
type ChaosRun struct {
	T       *testing.T
	Docker  *chaosDocker
	Cluster *ChaosCluster
	c       *chaosClient
	rec     *history.Recorder
	// recDB is the history of chaosDatabase, checked on its own.
	recDB *history.Recorder
	Load  *chaosLoad

	mu          sync.Mutex
	unavailable time.Duration // longest refusal on a minority node
	// Gone holds nodes a schedule took out for good (a wiped data dir); recovery and the
	// checks after it expect only the others.
	Gone map[string]bool
	Note string // added to the schedule's line (nemesis-mix: its seed and faults)
	// Flake is the flake schedule's minter processes (chaos_flake.go); set and read by
	// the test's goroutine only.
	Flake []*flakeMinter
	// minted holds the numeric IDs nodes minted for AnswersAlone (chaos_alone.go).
	minted numericIDs

	// replicas holds the replica checks made during the schedule (chaos_replicas.go).
	replicas *replicaWatch

	reportOnce sync.Once
	report     history.Report
	reportDB   history.Report
}

func runChaosSchedule(t *testing.T, d *chaosDocker, conns *chaosConns, sc ChaosSchedule) {
	begin := time.Now()
	r := &ChaosRun{T: t, Docker: d, Cluster: d.cluster, c: &chaosClient{chaosConns: conns, runID: uuid.NewString()[:8]}, rec: history.New(), recDB: history.New(), Gone: map[string]bool{}}
	// Cleanups run last first: heal the faults, stop the clients, print the line, show logs.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("docker-compose logs --tail %s (schedule %s):\n%s", chaosLogTail, sc.Name, d.logs())
			t.Logf("leaderships, cleared log suffixes, snapshots installed and replica verdicts in the whole logs (schedule %s):\n%s", sc.Name, d.events())
		}
	})
	t.Cleanup(func() { r.summary(sc.Name) })
	d.up(t)
	t.Logf("compose down -v, up -d: %v", time.Since(begin).Round(100*time.Millisecond))
	r.Recover("fresh cluster")
	r.replicas = r.watchReplicas()
	t.Cleanup(r.replicas.finish)
	r.createDatabase()
	r.Load = startChaosLoad(r.c, r.rec, r.recDB)
	t.Cleanup(func() { r.Load.finish(t) })
	t.Cleanup(func() {
		if t.Failed() {
			d.healAll(t)
		}
	})

	r.Progress("before the fault", r.Tags(), true)
	sc.Run(r)
	r.Recover("after the fault")
	r.Progress("after recovery", r.live(), true)
	stopping := time.Now()
	r.Load.finish(t)
	t.Logf("clients stopped in %v", time.Since(stopping).Round(10*time.Millisecond))
	r.verify(sc.Name)
	t.Logf("schedule %s: %v", sc.Name, time.Since(begin).Round(100*time.Millisecond))
}

// Tags lists the cluster's nodes.
func (r *ChaosRun) Tags() []string { return r.Cluster.Tags() }

// Others lists the cluster's nodes but tags.
func (r *ChaosRun) Others(tags ...string) []string { return r.Cluster.Others(tags...) }

// Leader polls Status{consistent} round the nodes until one names a leader.
func (r *ChaosRun) Leader() string {
	r.T.Helper()
	return r.LeaderIn(r.Tags()...)
}

// LeaderIn polls Status{consistent} round the nodes until one names a leader among tags (the
// preferred region's nodes, say, where leadership moves by itself).
func (r *ChaosRun) LeaderIn(tags ...string) string {
	r.T.Helper()
	var leader string
	i := 0
	e2etest.Eventually(r.T, chaosLeaderWait, "a leader among "+JoinTags(tags)+" is named", func() error {
		tag := r.Cluster.nodes[i%len(r.Cluster.nodes)].Tag
		i++
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		st, err := r.c.admin[tag].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			return fmt.Errorf("the Status call via %s: %w", tag, err)
		}
		if !slices.Contains(tags, st.GetLeader()) {
			return fmt.Errorf("the Status call via %s names leader %q", tag, st.GetLeader())
		}
		leader = st.GetLeader()
		return nil
	})
	r.T.Logf("leader %s", leader)
	return leader
}

// Progress is one bounded load phase: it waits until the clients have had chaosProgressOps
// more identity operations acknowledged (when identities is set), more HiLo ranges and, with
// claimers running, more claims answered (with identities), and more server-side IDs and
// GUIDs from each node of local. A phase that has not got there after chaosProgressWait
// passes if every one of those still advanced in its last chaosStallWindow: how fast the
// cluster serves is the machine's (a CI run's other steps share its two cores with the
// cluster's nodes), that it serves is the cluster's, and that is what a phase proves. So a
// phase never takes longer than chaosProgressWait, and a schedule's length stays bounded.
func (r *ChaosRun) Progress(phase string, local []string, identities bool) {
	r.T.Helper()
	start := r.Load.counts()
	began := time.Now()
	cutOff := began.Add(chaosProgressWait)
	var late *chaosCounts // the counts when the last chaosStallWindow of the phase began
	for {
		if errs := r.Load.errors(); len(errs) > 0 {
			r.T.Fatalf("load phase %s: a client got an unexpected answer: %v", phase, errors.Join(errs...))
		}
		now := r.Load.counts()
		short := r.progressShort(start, now, local, identities, false)
		if len(short) == 0 {
			break
		}
		if late == nil && time.Until(cutOff) <= chaosStallWindow {
			late = &now
		}
		if time.Now().After(cutOff) {
			if stalled := r.progressShort(*late, now, local, identities, true); len(stalled) > 0 {
				r.T.Fatalf("load phase %s: not within %v: %s; and nothing in its last %v: %s", phase, chaosProgressWait,
					strings.Join(short, "; "), chaosStallWindow, strings.Join(stalled, "; "))
			}
			r.T.Logf("load phase %q: its target not within %v (%s), but every kind advanced in its last %v", phase,
				chaosProgressWait, strings.Join(short, "; "), chaosStallWindow)
			break
		}
		time.Sleep(e2etest.PollInterval)
	}
	r.T.Logf("load phase %q: %v (totals: %v)", phase, time.Since(began).Round(10*time.Millisecond), r.Load.counts())
}

// progressShort lists what the load did not get from from to now: a phase's targets, or with
// anyAtAll one of each (an identity operation, a HiLo range, a claim, ...).
func (r *ChaosRun) progressShort(from, now chaosCounts, local []string, identities, anyAtAll bool) []string {
	want := func(target int64) int64 {
		if anyAtAll {
			return 1
		}
		return target
	}
	var short []string
	check := func(got, target int64, what string) {
		if got < want(target) {
			short = append(short, fmt.Sprintf("%d of %d %s", got, want(target), what))
		}
	}
	if identities {
		check(now.identities-from.identities, chaosProgressOps, "identity operations")
		check(now.hilo-from.hilo, chaosProgressHiLo, "HiLo ranges")
		if r.Load.claimers {
			check(now.claims-from.claims, chaosProgressClaims, "claims answered")
		}
		if r.Load.series != nil {
			check(now.series-from.series, chaosProgressSeries, "series numbers issued")
		}
		if r.Load.opaque != nil {
			check(now.opaque-from.opaque, chaosProgressOpaque, "opaque identity operations")
		}
	}
	for _, tag := range local {
		i := r.Cluster.index(tag)
		check(now.serverSide[i]-from.serverSide[i], chaosProgressLocal, "server-side IDs from node "+tag)
		check(now.guids[i]-from.guids[i], chaosProgressLocal, "GUIDs from node "+tag)
	}
	return short
}

// live lists the nodes the schedule has not taken out for good.
func (r *ChaosRun) live() []string {
	var out []string
	for _, tag := range r.Tags() {
		if !r.Gone[tag] {
			out = append(out, tag)
		}
	}
	return out
}

// Recover waits, by polling, until every live node is back on the Raft network, says SERVING
// for every strategy, and has answered an identity itself (not relayed elsewhere by the
// client).
func (r *ChaosRun) Recover(phase string) {
	r.T.Helper()
	began := time.Now()
	live := r.live()
	on := r.Docker.onRaftNetwork(r.T)
	for _, tag := range live {
		if !on[tag] {
			r.T.Fatalf("%s: only %v are on %s", phase, on, r.Docker.network)
		}
	}
	e2etest.Eventually(r.T, ChaosRecoverWait, phase+": every node SERVING", func() error {
		for _, tag := range live {
			if s := e2etest.HealthOf(r.c.health[tag], ""); s != healthpb.HealthCheckResponse_SERVING.String() {
				return fmt.Errorf("node %s: %s", tag, s)
			}
		}
		return nil
	})
	serving := time.Since(began)
	var wg sync.WaitGroup
	errs := make([]error, len(live))
	answered := make([]time.Duration, len(live))
	refused := make([]error, len(live)) // the last refusal before the answer
	for i, tag := range live {
		wg.Go(func() {
			refused[i], errs[i] = r.identityVia(tag, ChaosRecoverWait)
			answered[i] = time.Since(began)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.T.Fatalf("%s: %v", phase, err)
	}
	took := make([]string, len(live))
	for i, tag := range live {
		took[i] = fmt.Sprintf("%s %v", tag, answered[i].Round(10*time.Millisecond))
		if refused[i] != nil {
			took[i] += fmt.Sprintf(" (refused until then: %v)", refused[i])
		}
	}
	r.T.Logf("%s: recovered in %v (every node SERVING after %v; an identity answered by each node itself after: %s)",
		phase, time.Since(began).Round(10*time.Millisecond), serving.Round(10*time.Millisecond), strings.Join(took, ", "))
}

// identityVia is one identity operation asked of node tag only, retried there with the same
// request_id until it answers (at most budget). It returns the last refusal before the answer,
// if any, to show what a slow recovery waited for.
func (r *ChaosRun) identityVia(tag string, budget time.Duration) (refused, err error) {
	reqID := r.c.requestID()
	op := r.rec.BeginIdentity(chaosPrefix, 1)
	deadline := time.Now().Add(budget)
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			op.Retry()
		}
		ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
		resp, err := r.c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: chaosPrefix + "|", RequestId: reqID})
		cancel()
		if err == nil {
			first, last, perr := e2etest.ParseIdentities(resp.GetIds(), chaosPrefix, 1)
			if perr != nil {
				op.Unknown()
				return refused, fmt.Errorf("via %s: %w", tag, perr)
			}
			op.Done(first, last)
			return refused, nil
		}
		if !e2etest.Retryable(err) {
			op.Unknown()
			return refused, fmt.Errorf("identity via %s: %w", tag, err)
		}
		if time.Now().After(deadline) || attempt >= 10_000 {
			op.Unknown()
			return refused, fmt.Errorf("no identity via %s within %v (%d attempts): %w", tag, budget, attempt+1, err)
		}
		refused = fmt.Errorf("%d attempts, the last: %w", attempt+1, err)
		time.Sleep(50 * time.Millisecond) // retry backoff
	}
}

// Minority checks nodes that cannot reach a majority, all at once, right after the fault: each
// must refuse identities with UNAVAILABLE "no quorum" within chaosRefusalLimit, answer HiLo
// as its pool allows (hiloWithoutMajority), and keep answering server-side IDs and GUIDs. The
// longest identity refusal is the schedule's unavailable_ms.
func (r *ChaosRun) Minority(tags ...string) {
	r.T.Helper()
	var waits []func()
	for _, tag := range tags {
		waits = append(waits, r.MinorityAsync(tag))
	}
	for _, wait := range waits {
		wait()
	}
}

// MinorityAsync starts minority's checks of one node and returns the wait for them, which
// fails the test if they fail.
func (r *ChaosRun) MinorityAsync(tag string) (wait func()) {
	done := make(chan error, 1)
	go func() { done <- r.refuses(tag) }()
	return func() {
		r.T.Helper()
		if err := <-done; err != nil {
			r.T.Fatal(err)
		}
	}
}

func (r *ChaosRun) refuses(tag string) error {
	var longest time.Duration
	var took []string
	for range chaosProbes {
		op := r.rec.BeginIdentity(chaosPrefix, 1)
		begin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), chaosProbeDeadline)
		resp, err := r.c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: chaosPrefix + "|", RequestId: r.c.requestID()})
		cancel()
		d := time.Since(begin)
		if err == nil {
			if first, last, perr := e2etest.ParseIdentities(resp.GetIds(), chaosPrefix, 1); perr == nil {
				op.Done(first, last)
			} else {
				op.Unknown()
			}
			return fmt.Errorf("node %s, without a majority, answered %s| with %q after %v", tag, chaosPrefix, resp.GetIds(), d)
		}
		op.Unknown() // refused; an old leader may have appended it, and it must not matter
		if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "no quorum") || (reason.Of(err) != reason.NoQuorum && reason.Of(err) != reason.OutcomeUnknown) {
			// OUTCOME_UNKNOWN: the call was on its way to the old leader when this node gave up on it.
			return fmt.Errorf("node %s, without a majority, refused %s| after %v with %v (reason %q); want UNAVAILABLE saying \"no quorum\", reason %s or %s",
				tag, chaosPrefix, d, err, reason.Of(err), reason.NoQuorum, reason.OutcomeUnknown)
		}
		longest = max(longest, d)
		took = append(took, fmt.Sprint(d.Milliseconds()))
	}
	r.mu.Lock()
	r.unavailable = max(r.unavailable, longest)
	r.mu.Unlock()

	hilo, err := r.hiloWithoutMajority(tag)
	if err != nil {
		return err
	}
	if err := r.c.serverSide(r.rec, tag, 1, chaosLocalWait); err != nil {
		return fmt.Errorf("node %s, without a majority: server-side IDs must keep working: %w", tag, err)
	}
	if err := r.c.guid(r.rec, tag, false, chaosLocalWait); err != nil {
		return fmt.Errorf("node %s, without a majority: GUIDs must keep working: %w", tag, err)
	}
	r.T.Logf("node %s without a majority: identities refused in %s ms; %s; server-side ID and GUID answered",
		tag, strings.Join(took, ", "), hilo)
	if longest > chaosRefusalLimit {
		return fmt.Errorf("node %s, without a majority, took %v to refuse an identity; want at most %v", tag, longest, chaosRefusalLimit)
	}
	return nil
}

// verify runs the checks over everything the clients were told, after recovery with the
// clients stopped, prints the schedule's line and fails the test on any problem.
func (r *ChaosRun) verify(name string) {
	t := r.T
	t.Helper()
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, err := range r.Load.errors() {
		fail("client: %v", err)
	}

	// Nothing lost: a linearizable read of the counter holds every acknowledged value, and HiLo
	// Max every number granted (verifyHiLo; with pools a new range need not be above the others).
	var list *idnodev1.ListIdentitiesResponse
	e2etest.Eventually(t, ChaosRecoverWait, "ListIdentities", func() error {
		var errs []error
		for _, n := range r.Cluster.nodes {
			ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
			resp, err := r.c.ids[n.Tag].ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
			cancel()
			if err == nil {
				list = resp
				return nil
			}
			errs = append(errs, fmt.Errorf("via %s: %w", n.Tag, err))
		}
		return errors.Join(errs...)
	})
	counter := e2etest.IdentityMap(list)[chaosPrefix]
	if acked, ok := r.rec.MaxIdentity(chaosPrefix); !ok {
		fail("no identity of %s was acknowledged", chaosPrefix)
	} else if acked > counter {
		fail("identity counter %s is %d after recovery, but %s/%d was acknowledged: lost", chaosPrefix, counter, chaosPrefix, acked)
	}
	// The second database: its own counter, holding every value acknowledged there.
	ctx, cancel := context.WithTimeout(context.Background(), ChaosRecoverWait)
	dbList, err := r.c.ids[r.live()[0]].ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{Database: chaosDatabase})
	cancel()
	if acked, ok := r.recDB.MaxIdentity(chaosPrefix); err != nil || !ok {
		fail("database %s: ListIdentities %v, acknowledged anything: %v", chaosDatabase, err, ok)
	} else if got := e2etest.IdentityMap(dbList)[chaosPrefix]; acked > got {
		fail("identity counter %s of database %s is %d after recovery, but %s/%d was acknowledged there: lost", chaosPrefix, chaosDatabase, got, chaosPrefix, acked)
	}
	if err := r.verifyHiLo(); err != nil {
		fail("%v", err)
	}
	// Every claim as its claimer was told, on the healed cluster.
	if r.Load.claimers {
		if err := r.verifyClaims(counter); err != nil {
			fail("%v", err)
		}
	}
	// Every series journal as its callers were told (chaos_series.go).
	if r.Load.series != nil {
		problems = append(problems, r.verifySeries()...)
	}
	// Every opaque identity, read back to its value (chaos_opaque.go).
	if r.Load.opaque != nil {
		problems = append(problems, r.verifyOpaque()...)
	}
	// Every numeric ID the minter processes wrote (chaos_flake.go).
	if r.Flake != nil {
		problems = append(problems, r.verifyFlake()...)
	}
	// Every numeric ID nodes minted for AnswersAlone (chaos_alone.go).
	problems = append(problems, r.verifyNumeric()...)
	// Every live node issues server-side IDs after its restarts, above its earlier etags.
	for _, tag := range r.live() {
		if err := r.c.serverSide(r.rec, tag, 1, chaosLocalWait); err != nil {
			fail("after recovery: %v", err)
		}
	}

	// No member's state differed from the others' at any replica check (chaos_replicas.go).
	problems = append(problems, r.verifyReplicas()...)

	rep := r.summary(name) // fails the test on duplicates or a non-linearizable history
	t.Logf("history: %d identity operations (%d retried attempts, %d without a final answer), %d server-side IDs, %d GUIDs; %d calls gave up, %d local calls failed while nodes were down",
		rep.IdentityOps, rep.Retries, rep.UnknownOps, rep.ServerSideIDs, rep.GUIDs, r.Load.gaveUp.Load(), r.Load.localErrs.Load())
	for _, n := range r.Cluster.nodes {
		if err := r.rec.EtagsIncreasing(n.Tag); err != nil {
			fail("%v", err)
		}
	}
	c := r.Load.counts()
	if rep.Identities == 0 || rep.HiLoRanges == 0 || slices.Contains(c.serverSide[:], 0) || slices.Contains(c.guids[:], 0) {
		fail("too little load to check anything: %v", c)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// createDatabase creates chaosDatabase on the fresh cluster, through any node.
func (r *ChaosRun) createDatabase() {
	r.T.Helper()
	e2etest.Eventually(r.T, ChaosRecoverWait, "CreateDatabase "+chaosDatabase, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
		defer cancel()
		_, err := r.c.admin[r.Cluster.nodes[0].Tag].CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: chaosDatabase})
		if status.Code(err) == codes.AlreadyExists { // an earlier attempt's answer was lost
			return nil
		}
		return err
	})
}

// summary checks the history once for duplicates and linearizability, failing the test on
// either, and prints the schedule's line, to stdout (CI logs), the test log, and the file named
// by $IDNODE_CHAOS_SUMMARY if set (e2etest.Summarize). A schedule that stopped early still gets its line and its
// check, over the history so far.
func (r *ChaosRun) summary(name string) history.Report {
	r.reportOnce.Do(func() {
		r.report = r.rec.CheckWith(history.CheckOptions{Timeout: chaosCheckTimeout, VisualizeDir: os.Getenv("IDNODE_E2E_HISTORY_DIR")})
		r.reportDB = r.recDB.CheckWith(history.CheckOptions{Timeout: chaosCheckTimeout})
		r.mu.Lock()
		unavailable := r.unavailable
		r.mu.Unlock()
		line := fmt.Sprintf("schedule=%s %v unavailable_ms=%d %s={%v}", name, r.report, unavailable.Milliseconds(), chaosDatabase, r.reportDB)
		if r.replicas != nil {
			checks, mismatches := r.replicas.counts()
			line += fmt.Sprintf(" replica_checks=%d mismatches=%d", checks, mismatches)
		}
		if r.Note != "" {
			line += " " + r.Note
		}
		e2etest.Summarize(r.T, line)
		if err := r.report.Err(); err != nil {
			r.T.Errorf("history: %v", err)
		}
		if err := r.reportDB.Err(); err != nil {
			r.T.Errorf("history of database %s: %v", chaosDatabase, err)
		}
	})
	return r.report
}
