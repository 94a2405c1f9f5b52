package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/helpers/poll"
)

// Every node's console names the same offsets from the leader, Status's: a follower whose
// clock is three seconds ahead is +3 s seen from the leader, from the other follower and from
// itself, the other follower about 0, and the leader exactly 0 (it is the reference).
func TestClockOffsetsAreEveryNodesOffsetFromTheLeader(t *testing.T) {
	t.Parallel()
	nodes := map[string]*skewedNode{}
	c := newTestClusterConfigured(t, 3, func(nc *node.Config) {
		sn := &skewedNode{}
		nodes[nc.Tag] = sn
		nc.ServerConfig = func(sc server.Config) server.Config {
			sc.Now, sc.ClockProbeInterval = sn.now, clockProbe
			return sc
		}
	})
	leader := c.waitLeader(convergeTimeout, c.Tags()...)
	followers := without(c.Tags(), leader)
	ahead := followers[0]
	nodes[ahead].skew.Store(int64(3 * time.Second))
	want := map[string]time.Duration{leader: 0, ahead: 3 * time.Second, followers[1]: 0}
	for _, via := range c.Tags() {
		poll.Until(t, "the offsets as "+via+" sees them", 10*time.Second, clockProbe, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			got := c.Node(via).running.Server().ClockOffsets(ctx)
			for tag, w := range want {
				if d, ok := got[tag]; !ok || (d-w).Abs() > 250*time.Millisecond {
					return fmt.Errorf("%s's offset is %v (known %v); want %v", tag, d, ok, w)
				}
			}
			if got[leader] != 0 {
				t.Errorf("%s names the leader %s's offset %v; the leader is the reference, 0 by definition", via, leader, got[leader])
			}
			return nil
		})
	}
}
