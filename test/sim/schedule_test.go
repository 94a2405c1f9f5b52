package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// faultKind is one kind of thing that goes wrong.
type faultKind int

const (
	isolate        faultKind = iota // one node loses both its links
	cutLink                         // one link goes down; the third node still reaches both ends
	crash                           // a node stops, keeping its stores, and restarts later
	transfer                        // the leader hands leadership to another node
	slowLink                        // one link gets a delay each way
	clockStep                       // a node's clock, which stamps what it proposes, jumps
	slowDiskWrites                  // one node's log, stable and snapshot stores take a while per write
	faultKinds
)

func (k faultKind) String() string {
	return [...]string{"isolate", "cut link", "crash", "transfer leadership", "slow link", "clock step", "slow disk"}[k]
}

// fault is one fault of a schedule. A node of -1 means the leader of the moment.
type fault struct {
	at, lasts   time.Duration
	kind        faultKind
	node, other int
	delay, step time.Duration
	// links are the links the fault cut, once it began.
	links [][2]int
}

func (f fault) String() string {
	who := "the leader"
	if f.node >= 0 {
		who = nodeName(f.node)
	}
	switch f.kind {
	case cutLink:
		return fmt.Sprintf("cut %s–%s for %v", nodeName(f.node), nodeName(f.other), f.lasts)
	case slowLink:
		return fmt.Sprintf("%v each way on %s–%s for %v", f.delay, nodeName(f.node), nodeName(f.other), f.lasts)
	case clockStep:
		return fmt.Sprintf("%s's clock steps %v", nodeName(f.node), f.step)
	case slowDiskWrites:
		return fmt.Sprintf("%v per write on %s's disk for %v", f.delay, who, f.lasts)
	case transfer:
		return "transfer leadership"
	}
	return fmt.Sprintf("%s %s for %v", f.kind, who, f.lasts)
}

const (
	// simulated is how long a seed's load and faults run, in virtual time.
	simulated = 2 * time.Minute
	minFaults = 5
	maxFaults = 12
)

// newSchedule picks a seed's faults: between minFaults and maxFaults, each starting within
// the simulated time and over before it ends, so the cluster is whole for its last seconds.
func newSchedule(rng *rand.Rand) []fault {
	n := minFaults + rng.IntN(maxFaults-minFaults+1)
	faults := make([]fault, n)
	for i := range faults {
		f := fault{
			at:    time.Duration(2000+rng.IntN(int(simulated/time.Millisecond)-20_000)) * time.Millisecond,
			lasts: time.Duration(500+rng.IntN(12_000)) * time.Millisecond,
			kind:  faultKind(rng.IntN(int(faultKinds))),
			node:  rng.IntN(3),
		}
		f.other = (f.node + 1 + rng.IntN(2)) % 3
		if (f.kind == isolate || f.kind == crash || f.kind == slowDiskWrites) && rng.IntN(2) == 0 {
			f.node = -1
		}
		switch f.kind {
		case slowLink:
			f.delay = time.Duration(5+rng.IntN(400)) * time.Millisecond
		case slowDiskWrites:
			// From a busy disk's fsync to more than the heartbeat timeout (250 ms).
			f.delay = time.Duration(10+rng.IntN(390)) * time.Millisecond
		case clockStep:
			// Mostly small steps either way, sometimes one past the request table's 10 minutes.
			f.step = time.Duration(rng.IntN(120_000)-60_000) * time.Millisecond
			if rng.IntN(4) == 0 {
				f.step = 11 * time.Minute
			}
		}
		faults[i] = f
	}
	slices.SortFunc(faults, func(a, b fault) int { return cmp.Compare(a.at, b.at) })
	return faults
}
