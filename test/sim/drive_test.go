package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing/synctest"
	"time"
)

// event is a fault beginning or ending.
type event struct {
	at  time.Duration
	f   *fault
	end bool
}

// drive carries out the faults at their times and returns what it did, each line with its
// virtual time. rng picks a node where the leader was to be hit and none leads.
func (s *sim) drive(rng *rand.Rand, faults []fault) []string {
	var events []event
	for i := range faults {
		f := &faults[i]
		events = append(events, event{at: f.at, f: f})
		if f.kind != transfer && f.kind != clockStep {
			events = append(events, event{at: f.at + f.lasts, f: f, end: true})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	start := time.Now()
	var trace []string
	for _, e := range events {
		time.Sleep(time.Until(start.Add(e.at)))
		// Every other goroutine waits now, so the leader's loop, waiting in its select, has
		// taken every proposal from its queue: a crash cannot strand one there, where raft
		// would never answer it and its caller would wait past the bubble's end.
		synctest.Wait()
		if line := s.apply(rng, e); line != "" {
			trace = append(trace, fmt.Sprintf("%v: %s", time.Since(start), line))
		}
	}
	time.Sleep(time.Until(start.Add(simulated)))
	return trace
}

// apply begins or ends one fault and says what it did.
func (s *sim) apply(rng *rand.Rand, e event) string {
	c, f := s.c, e.f
	if e.end {
		switch f.kind {
		case isolate, cutLink:
			c.restore(f.links...)
			return fmt.Sprintf("end %s", f)
		case crash:
			if err := c.restart(f.node); err != nil {
				return fmt.Sprintf("restart %s: %v", nodeName(f.node), err)
			}
			return "restart " + nodeName(f.node)
		case slowLink:
			c.delays.set(f.node, f.other, 0)
			c.delays.set(f.other, f.node, 0)
			return fmt.Sprintf("%s–%s fast again", nodeName(f.node), nodeName(f.other))
		case slowDiskWrites:
			c.nodes[f.node].disk.set(0)
			return fmt.Sprintf("%s's disk fast again", nodeName(f.node))
		}
		return ""
	}
	leader := c.leader()
	if f.node < 0 {
		// The fault is fixed to a node now, so that its end concerns the same one.
		if f.node = leader; f.node < 0 {
			f.node = rng.IntN(len(c.nodes))
		}
	}
	what := fmt.Sprintf("%s (leader %s)", f, nameOr(leader))
	switch f.kind {
	case isolate:
		f.links = c.partition(f.node)
	case cutLink:
		f.links = [][2]int{pair(f.node, f.other)}
		c.cutLinks(f.links...)
	case crash:
		if err := c.crash(f.node); err != nil {
			return fmt.Sprintf("%s: %v", what, err)
		}
	case transfer:
		if leader < 0 {
			return what + ": no leader to transfer from"
		}
		if r := c.raftOf(leader); r != nil {
			if err := r.LeadershipTransfer().Error(); err != nil {
				return fmt.Sprintf("%s: %v", what, err)
			}
		}
	case slowLink:
		c.delays.set(f.node, f.other, f.delay)
		c.delays.set(f.other, f.node, f.delay)
	case slowDiskWrites:
		c.nodes[f.node].disk.set(f.delay)
	case clockStep:
		s.clockMu.Lock()
		s.offsets[f.node] += f.step
		s.clockMu.Unlock()
	}
	return what
}

func nameOr(i int) string {
	if i < 0 {
		return "none"
	}
	return nodeName(i)
}
