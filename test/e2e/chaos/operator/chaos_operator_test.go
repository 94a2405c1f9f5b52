package operator

// The schedules of operator and machine faults: a node whose data volume is lost
// coming back with the same flags, an AddNode for a tag or address in use, a join that fails
// half-way, and nemesis-mix, random faults from every schedule with a fixed, printed seed.
// chaostest/chaos_operator.go has the steps they share with the suite.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

const (
	chaosSeedEnv     = "IDNODE_CHAOS_SEED" // nemesis-mix's seed; chaosDefaultSeed without it
	chaosDefaultSeed = 11
	chaosNemesisMax  = 5                // faults per nemesis-mix run
	chaosNemesisTime = 90 * time.Second // no fault starts later than this into the run
)

// duplicateTagAdd is a duplicate node add under load: adds for a live tag and for another
// node's address are refused with ALREADY_EXISTS and change nothing, so when the leader then
// dies the two others still have their quorum.
func duplicateTagAdd(r *chaostest.ChaosRun) {
	leader := r.Leader()
	rest := r.Others(leader)
	before := r.Members(leader)
	r.RefusedAdds(rest[0])
	if after := r.Members(leader); !slices.Equal(after, before) {
		r.T.Fatalf("refused adds changed the cluster:\nbefore %q\nafter  %q", before, after)
	}
	r.Docker.Kill(r.T, leader)
	r.Progress("during: "+leader+" killed after the refused adds, survivors "+chaostest.JoinTags(rest), rest, true)
	r.Docker.Start(r.T, leader)
}

// failedJoin is a failed join under load: a new node joins and then fails (its metrics
// port is its Raft port, taken). It must leave no voter behind: the cluster still has its
// three voters, and keeps a quorum when the leader then dies.
func failedJoin(r *chaostest.ChaosRun) {
	leader := r.Leader()
	rest := r.Others(leader)
	r.FailedJoinVia(rest[0])
	r.Docker.Kill(r.T, leader)
	r.Progress("during: "+leader+" killed after the failed join, survivors "+chaostest.JoinTags(rest), rest, true)
	r.Docker.Start(r.T, leader)
}

// nemesisFault is one fault of nemesis-mix: it injects, runs a load phase during it, heals.
type nemesisFault struct {
	name string
	run  func(r *chaostest.ChaosRun, rng *rand.Rand)
}

var nemesisFaults = []nemesisFault{
	{"kill9", func(r *chaostest.ChaosRun, rng *rand.Rand) {
		victim := r.Tags()[rng.IntN(len(r.Tags()))]
		r.Docker.Kill(r.T, victim)
		r.Progress("during: "+victim+" killed", r.Others(victim), true)
		r.Docker.Start(r.T, victim)
	}},
	{"pause", func(r *chaostest.ChaosRun, rng *rand.Rand) {
		victim := r.Tags()[rng.IntN(len(r.Tags()))]
		r.Docker.Pause(r.T, victim)
		r.Progress("during: "+victim+" paused", r.Others(victim), true)
		r.Docker.Unpause(r.T, victim)
	}},
	{"isolate", func(r *chaostest.ChaosRun, rng *rand.Rand) {
		victim := r.Tags()[rng.IntN(len(r.Tags()))]
		r.Docker.Disconnect(r.T, victim)
		r.Minority(victim)
		r.Progress("during: "+victim+" isolated", r.Others(victim), true)
		r.Docker.Connect(r.T, victim)
	}},
	{"restart", func(r *chaostest.ChaosRun, rng *rand.Rand) {
		r.Docker.Restart(r.T, r.Tags()[rng.IntN(len(r.Tags()))])
	}},
	{"pause-two", func(r *chaostest.ChaosRun, rng *rand.Rand) {
		alone := r.Tags()[rng.IntN(len(r.Tags()))]
		frozen := r.Others(alone)
		r.Docker.Pause(r.T, frozen...)
		r.Minority(alone)
		r.Docker.Unpause(r.T, frozen...)
	}},
	{"refused-add", func(r *chaostest.ChaosRun, rng *rand.Rand) {
		r.RefusedAdds(r.Tags()[rng.IntN(len(r.Tags()))])
	}},
	{"failed-join", func(r *chaostest.ChaosRun, rng *rand.Rand) {
		r.FailedJoinVia(r.Tags()[rng.IntN(len(r.Tags()))])
	}},
}

// nemesisMix runs random faults from the schedules, one after another with recovery between,
// at most chaosNemesisMax of them and none starting after chaosNemesisTime. The seed (and the
// faults it drew) are on the schedule's line; IDNODE_CHAOS_SEED replays a run.
func nemesisMix(r *chaostest.ChaosRun) {
	seed := uint64(chaosDefaultSeed)
	if s := os.Getenv(chaosSeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			r.T.Fatalf("$%s=%q is not a seed: %v", chaosSeedEnv, s, err)
		}
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	var drawn []string
	began := time.Now()
	for i := 0; i < chaosNemesisMax && time.Since(began) < chaosNemesisTime; i++ {
		f := nemesisFaults[rng.IntN(len(nemesisFaults))]
		drawn = append(drawn, f.name)
		r.Note = fmt.Sprintf("seed=%d faults=%s", seed, strings.Join(drawn, ","))
		r.T.Logf("nemesis %d: %s", i+1, f.name)
		f.run(r, rng)
		r.Recover(fmt.Sprintf("after nemesis %d (%s)", i+1, f.name))
	}
}

// wipeAndRestart is a wiped data dir under load. A follower freezes; the cluster moves on
// without it; the other follower loses its data volume and is started again with the same
// flags; the leader dies; the frozen follower wakes. The wiped node must refuse to start (it
// used to vote the stale follower leader, and the pair handed out values again), the stale
// follower alone must refuse identities, and once the old leader is back the two continue.
func wipeAndRestart(r *chaostest.ChaosRun) {
	leader := r.Leader()
	others := r.Others(leader)
	stale, wiped := others[0], others[1]
	r.Docker.Pause(r.T, stale)
	r.Progress("during: "+stale+" paused", []string{leader, wiped}, true)
	r.Docker.Wipe(r.T, wiped)
	r.Gone[wiped] = true
	r.Docker.Kill(r.T, leader)
	r.Docker.Recreate(r.T, wiped)
	r.Docker.Unpause(r.T, stale)
	code, logs := r.Docker.Exited(r.T, r.Docker.Container(r.T, wiped))
	if code == 0 || !strings.Contains(logs, "cluster already exists") {
		r.T.Fatalf("node %s, started on an empty volume with its old flags, exited with %d; want a refusal saying the cluster already exists:\n%s", wiped, code, logs)
	}
	r.T.Logf("node %s with a wiped volume refused to start (exit %d)", wiped, code)
	r.Minority(stale)
	r.Docker.Start(r.T, leader)
}
