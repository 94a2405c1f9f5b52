package server_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// rebuild runs the runbook of docs/replica-checks.md, "Rebuilding a fenced member", on node
// tag: stop it, remove it through node via, wipe its data dir, and start it again with the
// empty data dir, joining through via. The removed tag is retired for ever, so the new member
// takes another: tag followed by "X". It returns the new tag once the new member serves.
func (c *testCluster) rebuild(t *testing.T, tag, via string) string {
	t.Helper()
	old := c.Node(tag)
	old.ctl.Close()
	if err := old.running.Close(); err != nil {
		t.Fatalf("stop node %s: %v", tag, err)
	}
	c.Net.drop(old)
	c.Nodes = slices.DeleteFunc(c.Nodes, func(tn *testNode) bool { return tn == old })
	delete(c.byTag, tag)

	admin := idnodev1.NewClusterServiceClient(c.Dial(t, via))
	ctx, cancel := context.WithTimeout(t.Context(), convergeTimeout)
	defer cancel()
	if _, err := admin.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: tag}); err != nil {
		t.Fatalf("idctl node remove %s: %v", tag, err)
	}
	if err := os.RemoveAll(old.Dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(old.Dir, 0o700); err != nil {
		t.Fatal(err)
	}

	tn := &testNode{Tag: tag + "X", Dir: old.Dir, RaftAddr: raft.ServerAddress("inmem-" + tag + "X:7000")}
	_, tn.Trans = raft.NewInmemTransportWithTimeout(tn.RaftAddr, inmemRaftTimeout)
	lis, err := c.Net.listen()
	if err != nil {
		t.Fatal(err)
	}
	internal, err := c.Net.listen()
	if err != nil {
		t.Fatal(err)
	}
	tn.GRPCAddr, tn.InternalAddr = lis.Addr().String(), internal.Addr().String()
	c.Net.add(tn)
	c.Net.heal()
	logs := &testLogWriter{t: t}
	t.Cleanup(logs.stop)
	nc := node.Config{
		DataDir: tn.Dir, Tag: tn.Tag, TagSet: true, Separator: docid.DefaultSeparator,
		GRPCListener: lis, GRPCAdvertise: tn.GRPCAddr, RaftAddr: string(tn.RaftAddr),
		Join: c.Node(via).GRPCAddr, JoinDialOptions: c.DialOptions(),
		MaxConns:  harnessMaxConns,
		Logger:    slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: harnessLogLevel})).With("node", tn.Tag),
		Transport: tn.Trans, InternalListener: internal, Timing: harnessTiming,
		Dial:          c.Net.dialer(tn.Tag),
		ServerOptions: []grpc.ServerOption{grpc.WaitForHandlers(true)},
	}
	withHarnessLookup(&nc)
	n, err := node.Start(context.Background(), nc)
	if err != nil {
		t.Fatalf("join node %s: %v", tn.Tag, err)
	}
	tn.running, tn.Node = n, n.Cluster()
	if tn.ctl, err = grpc.NewClient("passthrough:///"+tn.GRPCAddr, c.DialOptions()...); err != nil {
		t.Fatal(err)
	}
	c.Nodes = append(c.Nodes, tn)
	c.byTag[tn.Tag] = tn
	c.waitServing(startupTimeout, tn.Tag)
	return tn.Tag
}

// drop takes a stopped node off the network: no transport reaches it any more.
func (nw *network) drop(tn *testNode) {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	for _, other := range nw.nodes {
		other.Trans.Disconnect(tn.RaftAddr)
	}
	tn.Trans.DisconnectAll()
	delete(nw.nodes, tn.Tag)
	delete(nw.groupOf, tn.Tag)
}
