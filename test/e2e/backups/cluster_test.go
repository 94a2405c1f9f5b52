package backups

import (
	"context"
	"strings"
	"testing"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// cluster is idnode processes with the given tags, one Go client over all of them.
type cluster struct {
	nodes []*e2etest.Proc
	cl    *client.Client
}

// startCluster starts the daemon bin as one node per tag (one --peers list), each with extra
// flags and environment, and waits until each serves. The restored cluster takes other tags
// than the lost one: a node's server-side IDs are local to its data dir (docs/backups.md).
func startCluster(t *testing.T, bin string, tags []string, extra, env []string) *cluster {
	t.Helper()
	var peers []string
	raft := map[string]string{}
	for _, tag := range tags {
		raft[tag] = e2etest.FreeAddr(t)
		peers = append(peers, tag+"="+raft[tag])
	}
	c := &cluster{}
	for _, tag := range tags {
		opts := e2etest.NodeOpts{Binary: bin, Tag: tag, RaftAddr: raft[tag], Extra: extra, Env: env}
		if len(tags) > 1 {
			opts.Peers = strings.Join(peers, ",")
		}
		c.nodes = append(c.nodes, e2etest.StartNode(t, opts))
	}
	var addrs []string
	for _, p := range c.nodes {
		p.WaitServing(e2etest.ServeTimeout)
		addrs = append(addrs, p.GRPCAddr)
	}
	cl, err := client.Dial(context.Background(), addrs)
	if err != nil {
		t.Fatalf("dialling %v: %v", addrs, err)
	}
	t.Cleanup(func() { _ = cl.Close(context.Background()) })
	c.cl = cl
	return c
}
