package cluster

import (
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// Leadership changes are kept for LeaderHistory, at most maxLeaderChanges of them: a cluster
// that flaps keeps its newest changes, never an unbounded list.
const (
	LeaderHistory    = time.Hour
	maxLeaderChanges = 256
)

// LeaderChange is a change of leader as this node saw it.
type LeaderChange struct {
	At       time.Time
	LeaderID string // empty: no leader (an election under way)
	Term     uint64
}

// leaderLog records the leader changes raft reports to its observer, so an operator who opens
// the console in an incident sees the hour before, not only what happens after.
type leaderLog struct {
	mu      sync.Mutex
	changes []LeaderChange
	now     func() time.Time
}

// add records a change, dropping those older than LeaderHistory and the oldest beyond
// maxLeaderChanges. The same leader twice in a row is one change.
func (l *leaderLog) add(c LeaderChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.changes); n > 0 && l.changes[n-1].LeaderID == c.LeaderID {
		return
	}
	l.changes = append(l.recent(c.At), c)
	if over := len(l.changes) - maxLeaderChanges; over > 0 {
		l.changes = append(l.changes[:0], l.changes[over:]...)
	}
}

// recent is the changes within LeaderHistory of now; l.mu is held.
func (l *leaderLog) recent(now time.Time) []LeaderChange {
	i := 0
	for i < len(l.changes) && now.Sub(l.changes[i].At) > LeaderHistory {
		i++
	}
	return l.changes[i:]
}

// list is the changes of the last LeaderHistory, oldest first.
func (l *leaderLog) list() []LeaderChange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LeaderChange(nil), l.recent(l.now())...)
}

// observeLeaders feeds leader observations of r into the log until closed is closed. The
// observer does not block raft: a change that finds the channel full is dropped, and the
// next one (or the current leader, recorded when this starts) puts the log right.
func (n *Node) observeLeaders(r *raft.Raft) {
	ch := make(chan raft.Observation, 16)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	r.RegisterObserver(obs)
	_, id := r.LeaderWithID()
	n.leaders.add(LeaderChange{At: n.leaders.now(), LeaderID: string(id), Term: r.CurrentTerm()})
	go func() {
		defer r.DeregisterObserver(obs)
		for {
			select {
			case o := <-ch:
				lo := o.Data.(raft.LeaderObservation)
				n.leaders.add(LeaderChange{At: n.leaders.now(), LeaderID: string(lo.LeaderID), Term: r.CurrentTerm()})
			case <-n.closed:
				return
			}
		}
	}()
}

// LeaderChanges are the leadership changes this node saw in the last LeaderHistory (since it
// started, if later), oldest first, starting with the leader it found.
func (n *Node) LeaderChanges() []LeaderChange { return n.leaders.list() }
