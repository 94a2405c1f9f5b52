package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/forward"
)

// Without --raft-rtt the node keeps the LAN timing and election wait it has always had.
func TestRaftRTTDefaultIsTheLANTiming(t *testing.T) {
	c := mustParse(t, nil, nil)
	if got := c.timing(); got != cluster.DefaultTiming {
		t.Errorf("timing = %+v, want cluster.DefaultTiming %+v", got, cluster.DefaultTiming)
	}
	if c.electionWait != forward.DefaultElectionWait {
		t.Errorf("election wait = %v, want %v", c.electionWait, forward.DefaultElectionWait)
	}
}

// --raft-rtt, IDNODE_RAFT_RTT and the file's raft-rtt set the Raft timing and, unless it is
// given, the election wait; the snapshot settings stay the operator's.
func TestRaftRTTSetsTheTimingAndTheElectionWait(t *testing.T) {
	file := writeConfig(t, `raft-rtt = "90ms"`)
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"flag", []string{"--raft-rtt", "90ms"}, nil},
		{"environment", nil, map[string]string{"IDNODE_RAFT_RTT": "90ms"}},
		{"file", []string{"--config", file}, nil},
	} {
		c := mustParse(t, append(tc.args, "--raft-snapshot-interval", "1m"), tc.env)
		got := c.timing()
		if got.HeartbeatTimeout != 900*time.Millisecond || got.ElectionTimeout != 900*time.Millisecond ||
			got.LeaderLeaseTimeout != 720*time.Millisecond || got.SnapshotInterval != time.Minute {
			t.Errorf("%s: timing = %+v", tc.name, got)
		}
		if c.electionWait != 3600*time.Millisecond {
			t.Errorf("%s: election wait = %v, want four election timeouts, 3.6s", tc.name, c.electionWait)
		}
	}
	c := mustParse(t, []string{"--raft-rtt", "90ms", "--election-wait", "2s"}, nil)
	if c.electionWait != 2*time.Second {
		t.Errorf("--election-wait given: %v, want it kept at 2s", c.electionWait)
	}
}

// A round trip that is not positive, or absurdly long, is refused with the flag's name.
func TestRaftRTTRefusesHostileValues(t *testing.T) {
	for _, v := range []string{"0", "-1ms", "5001ms", "1h", "9223372036s", "fast"} {
		_, err := parseConfig([]string{"--raft-rtt", v}, environ(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "--raft-rtt") {
			t.Errorf("--raft-rtt %s: %v, want an error naming --raft-rtt", v, err)
		}
	}
}
