package cluster

import (
	"math"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/forward"
)

// The timing follows ten round trips, rounded up to the millisecond, and keeps DefaultTiming's
// below 25 ms; LANRoundTrip gives DefaultTiming itself.
func TestTimingForRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		rtt                        time.Duration
		heartbeat, election, lease time.Duration
	}{
		{LANRoundTrip, 250 * time.Millisecond, 250 * time.Millisecond, 200 * time.Millisecond},
		{time.Nanosecond, 250 * time.Millisecond, 250 * time.Millisecond, 200 * time.Millisecond},
		{25 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond, 200 * time.Millisecond},
		{25*time.Millisecond + time.Nanosecond, 260 * time.Millisecond, 260 * time.Millisecond, 208 * time.Millisecond},
		{30 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond, 240 * time.Millisecond},
		{90 * time.Millisecond, 900 * time.Millisecond, 900 * time.Millisecond, 720 * time.Millisecond},
		{MaxRoundTrip, 50 * time.Second, 50 * time.Second, 40 * time.Second},
	} {
		got, err := TimingForRoundTrip(tc.rtt)
		if err != nil {
			t.Fatalf("TimingForRoundTrip(%v): %v", tc.rtt, err)
		}
		want := DefaultTiming
		want.HeartbeatTimeout, want.ElectionTimeout, want.LeaderLeaseTimeout = tc.heartbeat, tc.election, tc.lease
		if got != want {
			t.Errorf("TimingForRoundTrip(%v) = %+v, want %+v", tc.rtt, got, want)
		}
		if _, err := (&Config{ID: "A", Timing: got}).raftConfig(); err != nil {
			t.Errorf("raft refuses the timing for %v: %v", tc.rtt, err)
		}
	}
	if got, _ := TimingForRoundTrip(LANRoundTrip); got != DefaultTiming {
		t.Errorf("TimingForRoundTrip(LANRoundTrip) = %+v, want DefaultTiming %+v", got, DefaultTiming)
	}
}

// A round trip that is not positive, or longer than MaxRoundTrip, is refused.
func TestTimingForRoundTripRefusesHostileValues(t *testing.T) {
	for _, rtt := range []time.Duration{0, -time.Millisecond, math.MinInt64, MaxRoundTrip + time.Nanosecond, math.MaxInt64} {
		if got, err := TimingForRoundTrip(rtt); err == nil {
			t.Errorf("TimingForRoundTrip(%v) = %+v, want an error", rtt, got)
		}
	}
}

// The election wait is four election timeouts: DefaultTiming's is the wait forwarding has
// always had, and a wider network's grows with its election timeout.
func TestElectionWaitFollowsTheElectionTimeout(t *testing.T) {
	if got := DefaultTiming.ElectionWait(); got != forward.DefaultElectionWait {
		t.Errorf("DefaultTiming.ElectionWait() = %v, want forward.DefaultElectionWait %v", got, forward.DefaultElectionWait)
	}
	wide, err := TimingForRoundTrip(90 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wide.ElectionWait(), 3600*time.Millisecond; got != want {
		t.Errorf("ElectionWait at 90 ms = %v, want %v", got, want)
	}
}
