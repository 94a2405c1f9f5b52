package cluster

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
)

// A cluster whose nodes open their connections with Config.Dial forms over mutual TLS and
// replicates through them: the handshake runs over what Dial returns, and every dial to a peer
// goes through it.
func TestDialOpensPeerConnectionsUnderTLS(t *testing.T) {
	var dials atomic.Int64
	dial := func(ctx context.Context, address string) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, "tcp", address)
	}
	cfgs := mutualTLSConfigs(t)
	for i := range cfgs {
		cfgs[i].Dial = dial
	}
	nodes := mustOpenAll(t, cfgs...)
	seedThroughLeader(t, nodes, "dial", 7)
	for _, n := range nodes {
		waitFor(t, "node "+n.ID()+" applied the seed", func() bool { return n.FSM().Identity("", "dial") == 7 })
	}
	if dials.Load() == 0 {
		t.Fatal("the cluster formed without a call of Config.Dial: its connections went around it")
	}
}
