package cluster

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/idnode/idnode/test/helpers/memnet"
)

// A cluster whose nodes open their connections with Config.Dial forms over mutual TLS and
// replicates through them: the handshake runs over what Dial returns, and every dial to a peer
// goes through it.
// It runs in a bubble on an in-memory network, as TestMutualTLSTransport does.
func TestDialOpensPeerConnectionsUnderTLS(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		var dials atomic.Int64
		cfgs := mutualTLSConfigs(t, mem)
		for i := range cfgs {
			memDial := cfgs[i].Dial
			cfgs[i].Dial = func(ctx context.Context, address string) (net.Conn, error) {
				dials.Add(1)
				return memDial(ctx, address)
			}
		}
		nodes := mustOpenAll(t, cfgs...)
		seedThroughLeader(t, nodes, "dial", 7)
		for _, n := range nodes {
			waitFor(t, "node "+n.ID()+" applied the seed", func() bool { return n.FSM().Identity("", "dial") == 7 })
		}
		if dials.Load() == 0 {
			t.Fatal("the cluster formed without a call of Config.Dial: its connections went around it")
		}
	})
}
