package cluster

import (
	"fmt"
	"time"
)

// Raft's timing follows the round trip between nodes as etcd's tuning guide derives it
// (https://etcd.io/docs/v3.5/tuning/): the leader sends a heartbeat about once per round trip,
// and a follower waits about ten of them before it starts an election, which absorbs the
// variance of a real network. In hashicorp/raft the leader sends heartbeats every tenth of
// HeartbeatTimeout, and HeartbeatTimeout is how long a follower waits, so both rules come to
// one: HeartbeatTimeout is ten round trips. It never goes below DefaultTiming's, which a LAN
// keeps (docs/decisions/0006-failover-timing.md); below that round trip nothing changes.
const (
	// LANRoundTrip is the round trip the node assumes unless told otherwise: a LAN's, which
	// gives DefaultTiming.
	LANRoundTrip = time.Millisecond
	// MaxRoundTrip bounds the round trip a node may be given: ten of it are 50 s, etcd's own
	// bound on its election timeout. A longer one is a mistake (a unit left off), not a network.
	MaxRoundTrip = 5 * time.Second
	// heartbeatsPerElection is how many round trips a follower waits before an election.
	heartbeatsPerElection = 10
	// electionRounds is how many election timeouts a call that finds no leader waits for one
	// (forward.DefaultElectionWait is four of DefaultTiming's): an election whose first
	// pre-vote was refused finishes on a later round.
	electionRounds = 4
)

// TimingForRoundTrip returns DefaultTiming with its heartbeat and election timeouts and its
// leader lease made for rtt, the round trip between the two nodes farthest apart: each is
// ten round trips, rounded up to the millisecond, and at least DefaultTiming's. The lease
// keeps the share of the heartbeat timeout it has in DefaultTiming (raft requires it no
// longer). A round trip that is not positive or over MaxRoundTrip is an error.
func TimingForRoundTrip(rtt time.Duration) (Timing, error) {
	if rtt <= 0 || rtt > MaxRoundTrip {
		return Timing{}, fmt.Errorf("round trip %v is outside (0, %v]: give the round trip between the two nodes farthest apart, e.g. 70ms", rtt, MaxRoundTrip)
	}
	t := DefaultTiming
	roundedUp := (rtt + time.Millisecond - 1).Truncate(time.Millisecond)
	t.HeartbeatTimeout = max(DefaultTiming.HeartbeatTimeout, heartbeatsPerElection*roundedUp)
	t.ElectionTimeout = likeDefault(t.HeartbeatTimeout, DefaultTiming.ElectionTimeout)
	t.LeaderLeaseTimeout = likeDefault(t.HeartbeatTimeout, DefaultTiming.LeaderLeaseTimeout)
	return t, nil
}

// likeDefault is d of heartbeat what it is of DefaultTiming's heartbeat timeout. heartbeat is
// a whole number of milliseconds, and dividing first keeps the product of two durations from
// overflowing.
func likeDefault(heartbeat, d time.Duration) time.Duration {
	return heartbeat / (DefaultTiming.HeartbeatTimeout / time.Millisecond) * (d / time.Millisecond)
}

// ElectionWait is how long a call that finds no leader waits for an election under t before
// it is refused: electionRounds election timeouts.
func (t Timing) ElectionWait() time.Duration {
	return electionRounds * t.ElectionTimeout
}
