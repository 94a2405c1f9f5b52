package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// A database's calls-a-second limit: a second's worth at once, then as the bucket refills;
// other databases and other methods are not counted.
func TestCallsPerSecondPerDatabase(t *testing.T) {
	t.Parallel()
	f := fsm.New()
	mustApplyFSM(t, f, fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "slow", MaxCallsPerSecond: 2})
	now := time.Unix(1000, 0)
	s := &interceptors{core: newCore(Config{Now: func() time.Time { return now }}, &fakeCluster{leader: true, fsm: f}, nil)}
	gen := &grpc.UnaryServerInfo{FullMethod: idnodev1.IdService_Generate_FullMethodName}
	handler := func(context.Context, any) (any, error) { return "ok", nil }
	call := func(db string) codes.Code {
		_, err := s.limitCalls(context.Background(), &idnodev1.GenerateRequest{Id: "x|", Database: db}, gen, handler)
		return status.Code(err)
	}
	for i, want := range []codes.Code{codes.OK, codes.OK, codes.ResourceExhausted} {
		if got := call("slow"); got != want {
			t.Fatalf("call %d at once: %v, want %v", i+1, got, want)
		}
	}
	if call("") != codes.OK {
		t.Fatal("the default database was limited")
	}
	now = now.Add(500 * time.Millisecond)
	if got, again := call("SLOW"), call("slow"); got != codes.OK || again != codes.ResourceExhausted {
		t.Fatalf("half a second later: %v then %v, want one call through", got, again)
	}
	st := &grpc.UnaryServerInfo{FullMethod: idnodev1.ClusterService_Status_FullMethodName}
	if _, err := s.limitCalls(context.Background(), &idnodev1.StatusRequest{}, st, handler); err != nil {
		t.Fatalf("Status was limited: %v", err)
	}
}
