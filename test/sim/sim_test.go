package sim

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/batch"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

var (
	seedFlag  = flag.Int64("seed", -1, "run only this seed's simulation (negative: the seeds 1..-sim.seeds)")
	seedsFlag = flag.Int("sim.seeds", defaultSeeds, "how many seeds TestSimulation runs (1..N)")
	// The forget flags give TestSimulation a deliberate bug, to see how often a seed that
	// catches it catches it again.
	forgetHiLoFlag   = flag.String("sim.forget-hilo", "", "make n3 answer HiLo grants without keeping them (a deliberate bug): always, or leading (only those it applies while it leads)")
	forgetSeriesFlag = flag.String("sim.forget-series", "", "make n3 answer series issues without journaling them (a deliberate bug): always, or leading")
)

// rerunCommand runs TestSimulation again; a failure adds its seed and any bug flag.
const rerunCommand = "go test -run TestSimulation ./test/sim"

// batchOptions are the identity and series batchers' options: the server's coalescing, one
// batch in flight, each commit bounded by a client's attempt.
var batchOptions = identity.Options{MaxBatch: 64, MaxInFlight: 1, CommitTimeout: attemptDeadline}

// flagBug is the deliberate bug the forget flags ask for, and the flag that asks for it.
func flagBug() (bug, string, error) {
	hilo, err := parseBug("sim.forget-hilo", *forgetHiLoFlag, fsm.HiLoGrantCommand)
	if err != nil {
		return noBug, "", err
	}
	issues, err := parseBug("sim.forget-series", *forgetSeriesFlag, fsm.SeriesIssueBatchCommand)
	switch {
	case err != nil:
		return noBug, "", err
	case hilo != noBug && issues != noBug:
		return noBug, "", fmt.Errorf("-sim.forget-hilo and -sim.forget-series both set: n3 has one bug at a time")
	case hilo != noBug:
		return hilo, " -sim.forget-hilo=" + *forgetHiLoFlag, nil
	case issues != noBug:
		return issues, " -sim.forget-series=" + *forgetSeriesFlag, nil
	}
	return noBug, "", nil
}

// TestSimulation runs the cluster under load and faults for each seed, and fails naming each
// seed whose answers break a promise and the command that runs it again.
func TestSimulation(t *testing.T) {
	b, bugFlag, err := flagBug()
	if err != nil {
		t.Fatal(err)
	}
	if *seedsFlag < 1 {
		t.Fatalf("-sim.seeds is %d: at least one seed must run", *seedsFlag)
	}
	rerun := rerunCommand + bugFlag
	if *seedFlag < 0 {
		t.Logf("seeds 1 to %d", *seedsFlag)
	}
	seeds := make([]int64, 0, *seedsFlag)
	if *seedFlag >= 0 {
		seeds = append(seeds, *seedFlag)
	} else {
		for s := range int64(*seedsFlag) {
			seeds = append(seeds, s+1)
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			res := simulate(t, seed, b)
			if len(res.problems) > 0 {
				t.Errorf("seed %d broke %d promises (rerun: %s -seed %d):\n%s\nfaults:\n%s\n%s",
					seed, len(res.problems), rerun, seed, strings.Join(firstOf(res.problems), "\n"), strings.Join(res.trace, "\n"), res.summary)
			} else if testing.Verbose() {
				t.Logf("%s; faults:\n%s", res.summary, strings.Join(res.trace, "\n"))
			}
		})
	}
}

// TestSimulationCatchesAReplicaThatForgetsHiLoGrants runs seeds with n3's FSM forgetting every
// HiLo grant until one fails: a simulator that never fails shows nothing.
func TestSimulationCatchesAReplicaThatForgetsHiLoGrants(t *testing.T) {
	catches(t, bug{forgets: fsm.HiLoGrantCommand}, "HiLo grant", "")
}

// TestSimulationCatchesAReplicaThatForgetsSeriesIssues: the same with n3 answering every series
// issue and journaling none, and a seed must fail by the series' own check (a number answered
// twice, or one the journal lacks), not only by the replicas' snapshots differing.
func TestSimulationCatchesAReplicaThatForgetsSeriesIssues(t *testing.T) {
	catches(t, bug{forgets: fsm.SeriesIssueBatchCommand}, "series issue", seriesName+" number")
}

// catches runs seeds 1..10 with b until one breaks a promise whose text has mark ("": any).
func catches(t *testing.T, b bug, what, mark string) {
	for seed := int64(1); seed <= 10; seed++ {
		res := simulate(t, seed, b)
		if i := slices.IndexFunc(res.problems, func(p string) bool { return strings.Contains(p, mark) }); i >= 0 {
			t.Logf("seed %d caught the forgetful replica (%d problems): %s", seed, len(res.problems), res.problems[i])
			return
		}
	}
	t.Fatalf("10 seeds ran with n3 forgetting every %s, and no check failed", what)
}

// firstOf keeps a failure's text readable: the first 20 problems, and how many more there are.
func firstOf(problems []string) []string {
	const shown = 20
	if len(problems) <= shown {
		return problems
	}
	return append(slices.Clone(problems[:shown]), fmt.Sprintf("… and %d more", len(problems)-shown))
}

// result is what one seed's run found.
type result struct {
	problems, trace []string
	summary         string
}

// sim is one seed's run: the cluster, each node's identity batcher (the server's, on the
// leader), each node's clock offset, and the answers.
type sim struct {
	c        *simCluster
	batchers []*identity.Batcher
	issuers  []*batch.Batcher[*raftv1.SeriesIssue, series.IssueResult]
	h        *history
	clockMu  sync.Mutex
	offsets  [3]time.Duration
	// marks is the index of every digest mark the cluster answered (markClient).
	marksMu sync.Mutex
	marks   []uint64
	// marksCompared is how many of them two replicas or more held at the end.
	marksCompared int
}

// nowMs is node i's clock, which stamps what it proposes.
func (s *sim) nowMs(i int) int64 {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	return time.Now().Add(s.offsets[i]).UnixMilli()
}

// simulate runs one seed in its own bubble.
func simulate(t *testing.T, seed int64, b bug) result {
	var res result
	synctest.Test(t, func(t *testing.T) {
		defer watchdog(seed)()
		res = run(t, seed, b)
	})
	return res
}

func run(t *testing.T, seed int64, b bug) (res result) {
	c, err := newSimCluster(t.TempDir(), b, storeKindOf(seed))
	if err != nil {
		t.Fatal(err)
	}
	s := &sim{c: c, h: newHistory()}
	for i := range c.nodes {
		s.batchers = append(s.batchers, identity.NewBatcher(identity.RaftCommitter{Applier: applier{c, i}, Now: func() time.Time {
			return time.UnixMilli(s.nowMs(i))
		}}, batchOptions))
		s.issuers = append(s.issuers, s.newIssuer(i))
	}
	defer func() {
		for _, b := range s.batchers {
			b.Close()
		}
		for _, b := range s.issuers {
			b.Close()
		}
		if err := c.stop(); err != nil {
			res.problems = append(res.problems, fmt.Sprintf("stop: %v", err))
		}
	}()

	ctx, cancel := context.WithTimeout(t.Context(), simulated)
	defer cancel()
	if err := s.createSeries(ctx); err != nil {
		res.problems = append(res.problems, err.Error())
		return res
	}
	if err := s.registerNodes(ctx); err != nil {
		res.problems = append(res.problems, err.Error())
		return res
	}
	var clients sync.WaitGroup
	client := func(k uint64, f func(rng *rand.Rand)) {
		rng := rand.New(rand.NewPCG(uint64(seed), k))
		clients.Go(func() { f(rng) })
	}
	for k, name := range []string{"users", "users", "users", "orders"} {
		who := fmt.Sprintf("id%d", k+1)
		client(uint64(k+1), func(rng *rand.Rand) { s.identityClient(ctx, who, name, rng) })
	}
	for k := range 2 {
		who := fmt.Sprintf("hilo%d", k+1)
		client(uint64(10+k), func(rng *rand.Rand) { s.hiloClient(ctx, who, "invoices", rng) })
	}
	client(15, func(rng *rand.Rand) { s.poolClient(ctx, "invoices", rng) })
	client(16, func(rng *rand.Rand) { s.markClient(ctx, rng) })
	for k, owner := range []string{"alice", "bob"} {
		client(uint64(20+k), func(rng *rand.Rand) { s.claimClient(ctx, owner, "users", rng) })
	}
	for k := range 3 {
		holder := fmt.Sprintf("minter%d", k+1)
		client(uint64(30+k), func(rng *rand.Rand) { s.workerClient(ctx, holder, rng) })
	}
	for k := range 2 {
		who := fmt.Sprintf("biller%d", k+1)
		client(uint64(40+k), func(rng *rand.Rand) { s.seriesClient(ctx, who, rng) })
	}

	// The schedule, the driver and each client draw from streams of their own.
	res.trace = s.drive(rand.New(rand.NewPCG(uint64(seed), 100)), newSchedule(rand.New(rand.NewPCG(uint64(seed), 0))))
	clients.Wait()

	// Every fault is over: the cluster must agree, and hold every answer it gave.
	c.heal()
	c.delays.clear()
	for i := range c.nodes {
		if err := c.restart(i); err != nil {
			res.problems = append(res.problems, err.Error())
			return res
		}
	}
	// The issues left unanswered are asked again first, so that the replicas compared hold them.
	res.problems = append(res.problems, s.finishIssues(t.Context())...)
	leader, problem := s.converge(30 * time.Second)
	if leader < 0 {
		res.problems = append(res.problems, problem)
		return res
	}
	if problem != "" {
		res.problems = append(res.problems, problem)
	}
	rep := c.replicaOf(leader)
	journal, err := seriesJournal(rep)
	if err != nil {
		res.problems = append(res.problems, err.Error())
	}
	res.problems = append(res.problems, s.h.check(finalState{
		identity: func(name string) int64 { return rep.Identity("", name) },
		hiloMax:  func(tag string) int64 { return rep.HiLoMax("", tag) },
		journal:  journal,
	})...)
	res.summary = fmt.Sprintf("%s; %d digest marks compared; %s log store", s.h.summary(), s.marksCompared, c.store)
	return res
}

// converge waits until a node leads and every replica has applied the leader's whole log,
// then compares the replicas' snapshots: equal states write equal bytes.
func (s *sim) converge(within time.Duration) (int, string) {
	deadline := time.Now().Add(within)
	leader, barrier := -1, uint64(0)
	for ; ; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			return -1, fmt.Sprintf("the cluster did not settle within %v of the faults ending: leader %s, barrier at %d, applied %v",
				within, nameOr(s.c.leader()), barrier, s.applied())
		}
		if barrier == 0 || s.c.leader() != leader {
			// A barrier commits an entry of the leader's term, so everything before it is
			// committed; then every replica must apply up to it.
			if leader = s.c.leader(); leader < 0 {
				continue
			}
			r := s.c.raftOf(leader)
			if err := r.Barrier(time.Second).Error(); err != nil {
				barrier = 0
				continue
			}
			barrier = r.LastIndex()
		}
		if slices.ContainsFunc(s.applied(), func(a uint64) bool { return a < barrier }) {
			continue
		}
		// raft counts an entry applied once it is handed to the FSM; Wait returns once every
		// FSM goroutine waits again, having applied it.
		synctest.Wait()
		marks, compared := s.compareMarks()
		s.marksCompared = compared
		return leader, strings.Join(slices.DeleteFunc([]string{s.compareReplicas(), marks}, func(p string) bool { return p == "" }), "; ")
	}
}

// compareMarks returns "" when every replica that holds a digest at a mark the cluster
// answered holds the same one, else the first mark where they differ and in what parts, and
// how many marks two replicas or more held. A replica holds only its latest marks, those it
// applied since it started (a restart replays the log's), and none below a snapshot it
// installed.
func (s *sim) compareMarks() (problem string, compared int) {
	s.marksMu.Lock()
	marks := slices.Clone(s.marks)
	s.marksMu.Unlock()
	for _, index := range marks {
		var first fsm.MarkedDigest
		firstNode, holders := -1, 0
		for i := range s.c.nodes {
			m, ok := fsm.DigestAt(s.c.replicaOf(i).FSM, index)
			switch {
			case !ok:
				continue
			case m.Err != nil:
				return fmt.Sprintf("%s's digest at mark %d: %v", nodeName(i), index, m.Err), compared
			case firstNode < 0:
				first, firstNode = m, i
			case !bytes.Equal(m.Digest, first.Digest):
				return fmt.Sprintf("the replicas' digests differ at mark %d: %s's and %s's differ in %s",
					index, nodeName(firstNode), nodeName(i), strings.Join(first.Parts.Differing(m.Parts), ", ")), compared
			}
			holders++
		}
		if holders > 1 {
			compared++
		}
	}
	return "", compared
}

func (s *sim) applied() []uint64 {
	var out []uint64
	for i := range s.c.nodes {
		if r := s.c.raftOf(i); r != nil {
			out = append(out, r.AppliedIndex())
		}
	}
	return out
}

// compareReplicas returns "" when the three replicas write the same snapshot, else what
// differs.
func (s *sim) compareReplicas() string {
	var snaps [][]byte
	for i := range s.c.nodes {
		b, err := snapshotBytes(s.c.replicaOf(i).FSM)
		if err != nil {
			return fmt.Sprintf("snapshot of %s: %v", nodeName(i), err)
		}
		snaps = append(snaps, b)
	}
	for i := 1; i < len(snaps); i++ {
		if !bytes.Equal(snaps[0], snaps[i]) {
			var what []string
			for j := range s.c.nodes {
				r := s.c.replicaOf(j)
				what = append(what, fmt.Sprintf("%s: users %d, orders %d, invoices Max %d, %d snapshot bytes",
					nodeName(j), r.Identity("", "users"), r.Identity("", "orders"), r.HiLoMax("", "invoices"), len(snaps[j])))
			}
			return fmt.Sprintf("the replicas differ once every fault is over: %s", strings.Join(what, "; "))
		}
	}
	return ""
}

// snapshotBytes is what r's snapshot writes.
func snapshotBytes(r *fsm.FSM) ([]byte, error) {
	snap, err := r.Snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	var sink bufferSink
	if err := snap.Persist(&sink); err != nil {
		return nil, err
	}
	return sink.Bytes(), nil
}

// bufferSink is a raft.SnapshotSink that keeps the bytes.
type bufferSink struct{ bytes.Buffer }

func (*bufferSink) ID() string    { return "sim" }
func (*bufferSink) Cancel() error { return nil }
func (*bufferSink) Close() error  { return nil }

var _ raft.SnapshotSink = (*bufferSink)(nil)
