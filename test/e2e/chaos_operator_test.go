package e2e

// The chaos suite's operator and machine faults (issue 11): a node whose data volume is lost
// coming back with the same flags, an AddNode for a tag or address in use, a join that fails
// half-way, and nemesis-mix, random faults from every schedule with a fixed, printed seed.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

const (
	chaosSeedEnv     = "IDNODE_CHAOS_SEED" // nemesis-mix's seed; chaosDefaultSeed without it
	chaosDefaultSeed = 11
	chaosNemesisMax  = 5                // faults per nemesis-mix run
	chaosNemesisTime = 90 * time.Second // no fault starts later than this into the run
)

// wipeAndRestart is issue 11's repro 1 under load. A follower freezes; the cluster moves on
// without it; the other follower loses its data volume and is started again with the same
// flags; the leader dies; the frozen follower wakes. The wiped node must refuse to start (it
// used to vote the stale follower leader, and the pair handed out values again), the stale
// follower alone must refuse identities, and once the old leader is back the two continue.
func wipeAndRestart(r *chaosRun) {
	leader := r.leader()
	others := chaosOthers(leader)
	stale, wiped := others[0], others[1]
	r.d.pause(r.t, stale)
	r.progress("during: "+stale+" paused", []string{leader, wiped}, true)
	r.d.wipe(r.t, wiped)
	r.gone[wiped] = true
	r.d.kill(r.t, leader)
	r.d.recreate(r.t, wiped)
	r.d.unpause(r.t, stale)
	code, logs := r.d.exited(r.t, r.d.container(r.t, wiped))
	if code == 0 || !strings.Contains(logs, "cluster already exists") {
		r.t.Fatalf("node %s, started on an empty volume with its old flags, exited with %d; want a refusal saying the cluster already exists:\n%s", wiped, code, logs)
	}
	r.t.Logf("node %s with a wiped volume refused to start (exit %d)", wiped, code)
	r.minority(stale)
	r.d.start(r.t, leader)
}

// duplicateTagAdd is issue 11's repro 2 under load: adds for a live tag and for another
// node's address are refused with ALREADY_EXISTS and change nothing, so when the leader then
// dies the two others still have their quorum.
func duplicateTagAdd(r *chaosRun) {
	leader := r.leader()
	rest := chaosOthers(leader)
	before := r.members(leader)
	r.refusedAdds(rest[0])
	if after := r.members(leader); !slices.Equal(after, before) {
		r.t.Fatalf("refused adds changed the cluster:\nbefore %q\nafter  %q", before, after)
	}
	r.d.kill(r.t, leader)
	r.progress("during: "+leader+" killed after the refused adds, survivors "+joinTags(rest), rest, true)
	r.d.start(r.t, leader)
}

// refusedAdds asks, through node via, to add a node under a live tag with new addresses, and a
// node with a free tag at another node's Raft address: both must be ALREADY_EXISTS.
func (r *chaosRun) refusedAdds(via string) {
	r.t.Helper()
	victim := chaosOthers(via)[0]
	for _, req := range []*idnodev1.AddNodeRequest{
		{Tag: victim, RaftAddress: "raft-x:7000", GrpcAddress: "raft-x:7070"},
		{Tag: "D", RaftAddress: chaosNodeOf(victim).alias + ":7000", GrpcAddress: "raft-d:7070"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), chaosProbeDeadline)
		_, err := r.c.admin[via].AddNode(ctx, req)
		cancel()
		if status.Code(err) != codes.AlreadyExists {
			r.t.Fatalf("AddNode(tag %q, raft %s) via %s = %v; want ALREADY_EXISTS", req.GetTag(), req.GetRaftAddress(), via, err)
		}
	}
}

// failedJoin is issue 11's repro 3 under load: a new node joins and then fails (its metrics
// port is its Raft port, taken). It must leave no voter behind: the cluster still has its
// three voters, and keeps a quorum when the leader then dies.
func failedJoin(r *chaosRun) {
	leader := r.leader()
	rest := chaosOthers(leader)
	r.failedJoinVia(rest[0])
	r.d.kill(r.t, leader)
	r.progress("during: "+leader+" killed after the failed join, survivors "+joinTags(rest), rest, true)
	r.d.start(r.t, leader)
}

// failedJoinVia starts a new node that joins through node via and then fails, and checks that
// the cluster's members are as they were.
func (r *chaosRun) failedJoinVia(via string) {
	r.t.Helper()
	before := r.members(via)
	id := r.d.runOnRaftNetwork(r.t, "raft-d", "--join", chaosNodeOf(via).alias+":7070", "--data-dir", "/data",
		"--grpc-addr", "0.0.0.0:7070", "--grpc-advertise", "raft-d:7070", "--raft-addr", "0.0.0.0:7000",
		"--raft-advertise", "raft-d:7000", "--metrics-addr", "0.0.0.0:7000")
	code, logs := r.d.exited(r.t, id)
	if code == 0 || !strings.Contains(logs, "address already in use") {
		r.t.Fatalf("the joining node exited with %d; want a failure naming the port in use:\n%s", code, logs)
	}
	if after := r.members(via); !slices.Equal(after, before) {
		r.t.Fatalf("the failed join changed the cluster:\nbefore %q\nafter  %q\njoiner's output:\n%s", before, after, logs)
	}
}

// members is what Status (consistent) via tag says of every node: tag, id and voter, sorted.
func (r *chaosRun) members(via string) []string {
	r.t.Helper()
	var out []string
	eventually(r.t, chaosLeaderWait, "Status via "+via, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
		defer cancel()
		st, err := r.c.admin[via].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			return err
		}
		out = out[:0]
		for _, n := range st.GetNodes() {
			out = append(out, fmt.Sprintf("%s %s voter=%v", n.GetTag(), n.GetId(), n.GetVoter()))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// nemesisFault is one fault of nemesis-mix: it injects, runs a load phase during it, heals.
type nemesisFault struct {
	name string
	run  func(r *chaosRun, rng *rand.Rand)
}

var nemesisFaults = []nemesisFault{
	{"kill9", func(r *chaosRun, rng *rand.Rand) {
		victim := chaosTags()[rng.IntN(len(chaosNodes))]
		r.d.kill(r.t, victim)
		r.progress("during: "+victim+" killed", chaosOthers(victim), true)
		r.d.start(r.t, victim)
	}},
	{"pause", func(r *chaosRun, rng *rand.Rand) {
		victim := chaosTags()[rng.IntN(len(chaosNodes))]
		r.d.pause(r.t, victim)
		r.progress("during: "+victim+" paused", chaosOthers(victim), true)
		r.d.unpause(r.t, victim)
	}},
	{"isolate", func(r *chaosRun, rng *rand.Rand) {
		victim := chaosTags()[rng.IntN(len(chaosNodes))]
		r.d.disconnect(r.t, victim)
		r.minority(victim)
		r.progress("during: "+victim+" isolated", chaosOthers(victim), true)
		r.d.connect(r.t, victim)
	}},
	{"restart", func(r *chaosRun, rng *rand.Rand) {
		r.d.restart(r.t, chaosTags()[rng.IntN(len(chaosNodes))])
	}},
	{"pause-two", func(r *chaosRun, rng *rand.Rand) {
		alone := chaosTags()[rng.IntN(len(chaosNodes))]
		frozen := chaosOthers(alone)
		r.d.pause(r.t, frozen...)
		r.minority(alone)
		r.d.unpause(r.t, frozen...)
	}},
	{"refused-add", func(r *chaosRun, rng *rand.Rand) {
		r.refusedAdds(chaosTags()[rng.IntN(len(chaosNodes))])
	}},
	{"failed-join", func(r *chaosRun, rng *rand.Rand) {
		r.failedJoinVia(chaosTags()[rng.IntN(len(chaosNodes))])
	}},
}

// nemesisMix runs random faults from the schedules, one after another with recovery between,
// at most chaosNemesisMax of them and none starting after chaosNemesisTime. The seed (and the
// faults it drew) are on the schedule's line; IDNODE_CHAOS_SEED replays a run.
func nemesisMix(r *chaosRun) {
	seed := uint64(chaosDefaultSeed)
	if s := os.Getenv(chaosSeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			r.t.Fatalf("$%s=%q is not a seed: %v", chaosSeedEnv, s, err)
		}
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	var drawn []string
	began := time.Now()
	for i := 0; i < chaosNemesisMax && time.Since(began) < chaosNemesisTime; i++ {
		f := nemesisFaults[rng.IntN(len(nemesisFaults))]
		drawn = append(drawn, f.name)
		r.note = fmt.Sprintf("seed=%d faults=%s", seed, strings.Join(drawn, ","))
		r.t.Logf("nemesis %d: %s", i+1, f.name)
		f.run(r, rng)
		r.recover(fmt.Sprintf("after nemesis %d (%s)", i+1, f.name))
	}
}
