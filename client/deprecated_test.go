package client

import (
	"bytes"
	"context"
	"io"
	"slices"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// methodLog records the full method name of every RPC a fake node is sent, served or not.
type methodLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *methodLog) add(method string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.methods = append(l.methods, method)
}

// take returns the methods recorded since the last take.
func (l *methodLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.methods
	l.methods = nil
	return out
}

func (l *methodLog) serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			l.add(info.FullMethod)
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			l.add(info.FullMethod)
			return h(srv, ss)
		}),
		// The fake serves no SeriesService: its calls are answered UNIMPLEMENTED, after the
		// interceptor above recorded them.
		grpc.UnknownServiceHandler(func(any, grpc.ServerStream) error {
			return status.Error(codes.Unimplemented, "not served by the fake node")
		}),
	}
}

// Each deprecated forward still makes the RPC of the call it moved to. What the fake node
// answers does not matter here (it serves some of them, refuses the rest UNIMPLEMENTED): that
// the old name reaches the same RPC, once, does.
func TestDeprecatedForwardsMakeTheirCall(t *testing.T) {
	var log methodLog
	n := startFakeNode(t, "A", newFakeState(), log.serverOptions()...)
	c := dialTest(t, []string{n.addr})
	ctx := testCtx(t)
	entry := func(*idnodev1.SeriesEntry) error { return nil }
	forwards := []struct {
		old  string
		call func() error
		rpc  string
	}{
		{"Status", func() error { _, err := c.Status(ctx, false); return err }, idnodev1.ClusterService_Status_FullMethodName},
		{"WhoAmI", func() error { _, err := c.WhoAmI(ctx); return err }, idnodev1.ClusterService_WhoAmI_FullMethodName},
		{"AddNode", func() error { _, err := c.AddNode(ctx, &idnodev1.AddNodeRequest{}); return err }, idnodev1.ClusterService_AddNode_FullMethodName},
		{"RemoveNode", func() error { return c.RemoveNode(ctx, "B") }, idnodev1.ClusterService_RemoveNode_FullMethodName},
		{"TransferLeadership", func() error { _, err := c.TransferLeadership(ctx, "A"); return err }, idnodev1.ClusterService_TransferLeadership_FullMethodName},
		{"Backup", func() error { _, err := c.Backup(ctx, io.Discard); return err }, idnodev1.ClusterService_Backup_FullMethodName},
		{"Restore", func() error { _, err := c.Restore(ctx, bytes.NewReader(nil)); return err }, idnodev1.ClusterService_Restore_FullMethodName},
		{"ClusterVersion", func() error { _, err := c.ClusterVersion(ctx); return err }, idnodev1.ClusterService_ClusterVersion_FullMethodName},
		{"SetClusterVersion", func() error { _, err := c.SetClusterVersion(ctx, 2); return err }, idnodev1.ClusterService_SetClusterVersion_FullMethodName},
		{"ReleaseOwner", func() error { _, err := c.ReleaseOwner(ctx, "o"); return err }, idnodev1.IdService_ReleaseOwner_FullMethodName},
		{"CreateDatabase", func() error { return c.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: "shop"}) }, idnodev1.ClusterService_CreateDatabase_FullMethodName},
		{"DeleteDatabase", func() error { return c.DeleteDatabase(ctx, "shop", false) }, idnodev1.ClusterService_DeleteDatabase_FullMethodName},
		{"ListDatabases", func() error { _, err := c.ListDatabases(ctx); return err }, idnodev1.ClusterService_ListDatabases_FullMethodName},
		{"CreateKey", func() error { _, _, err := c.CreateKey(ctx, "shop", "writer"); return err }, idnodev1.ClusterService_CreateKey_FullMethodName},
		{"DeleteKey", func() error { return c.DeleteKey(ctx, "k1") }, idnodev1.ClusterService_DeleteKey_FullMethodName},
		{"ListKeys", func() error { _, err := c.ListKeys(ctx); return err }, idnodev1.ClusterService_ListKeys_FullMethodName},
		{"CreateSeries", func() error { _, err := c.CreateSeries(ctx, &idnodev1.CreateSeriesRequest{Name: "inv"}); return err }, idnodev1.SeriesService_CreateSeries_FullMethodName},
		{"ListSeries", func() error { _, err := c.ListSeries(ctx); return err }, idnodev1.SeriesService_ListSeries_FullMethodName},
		{"Issue", func() error { _, err := c.Issue(ctx, &idnodev1.IssueRequest{Series: "inv"}); return err }, idnodev1.SeriesService_Issue_FullMethodName},
		{"Void", func() error { _, err := c.Void(ctx, &idnodev1.VoidRequest{Series: "inv"}); return err }, idnodev1.SeriesService_Void_FullMethodName},
		{"VerifySeries", func() error { _, err := c.VerifySeries(ctx, "inv"); return err }, idnodev1.SeriesService_VerifySeries_FullMethodName},
		{"Journal", func() error { return c.Journal(ctx, "inv", 1, 0, entry) }, idnodev1.SeriesService_Journal_FullMethodName},
		{"AcquireWorker", func() error { _, err := c.AcquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Holder: "h"}); return err }, idnodev1.IdService_AcquireWorker_FullMethodName},
		{"RenewWorker", func() error { _, err := c.RenewWorker(ctx, &idnodev1.RenewWorkerRequest{Worker: 1}); return err }, idnodev1.IdService_RenewWorker_FullMethodName},
		{"ReleaseWorker", func() error { return c.ReleaseWorker(ctx, &idnodev1.ReleaseWorkerRequest{Worker: 1}) }, idnodev1.IdService_ReleaseWorker_FullMethodName},
		{"ListWorkers", func() error { _, err := c.ListWorkers(ctx, &idnodev1.ListWorkersRequest{}); return err }, idnodev1.IdService_ListWorkers_FullMethodName},
	}
	for _, f := range forwards {
		err := f.call()
		if got := log.take(); !slices.Equal(got, []string{f.rpc}) {
			t.Errorf("Client.%s (err %v) sent %v, want one %s", f.old, err, got, f.rpc)
		}
	}
}
