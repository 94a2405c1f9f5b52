package server

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// A follower relays a call to the leader by the public method's name, and to a leader whose
// build serves only the Leader service (the builds before the relay by name) through that.
// Each leader here serves one way only, so an answer proves the way it came.
func TestFollowerRelaysByNameAndToOlderLeaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		serve  func(gi *grpc.Server, leader *Server)
		byName bool // the leader serves the leader halves by name
	}{
		{"leader halves by name", func(gi *grpc.Server, l *Server) {
			registerLeaderHalves(gi, idnodev1.IdService_ServiceDesc, l.ids.leader())
			registerLeaderHalves(gi, idnodev1.ClusterService_ServiceDesc, l.cluster.leader())
			registerLeaderHalves(gi, idnodev1.SeriesService_ServiceDesc, l.series.leader())
		}, true},
		{"the Leader service only", func(gi *grpc.Server, l *Server) {
			forwardv1.RegisterLeaderServer(gi, leaderService{idLeader: l.ids.leader(), clusterLeader: l.cluster.leader(), seriesLeader: l.series.leader()})
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Only the leader's state has database billing.
			state := fsm.New()
			data, err := fsm.Encode(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
			if err != nil {
				t.Fatal(err)
			}
			if err, ok := state.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
				t.Fatal(err)
			}
			leader := New(Config{Tag: "A"}, &fakeCluster{leader: true, fsm: state}, nil)
			t.Cleanup(leader.Close)
			gi := grpc.NewServer()
			tc.serve(gi, leader)
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = gi.Serve(lis) }()
			t.Cleanup(gi.Stop)

			toLeader := func(ctx context.Context, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "tcp", lis.Addr().String())
			}
			follower := New(Config{Tag: "B", Dial: toLeader}, otherMember{&fakeCluster{fsm: fsm.New()}}, nil)
			t.Cleanup(follower.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			dbs, err := follower.cluster.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
			if err != nil || len(dbs.GetDatabases()) != 2 || dbs.GetDatabases()[0].GetName() != "billing" {
				t.Fatalf("ListDatabases through the follower = %v, %v; want the leader's billing and default", dbs, err)
			}
			// A call newer than the Leader service has no way to an older leader.
			newer := viaCluster(idnodev1.ClusterServiceClient.ListDatabases, nil)
			_, err = forward.Call(follower.fwd, ctx, &idnodev1.ListDatabasesRequest{}, forward.Unary, follower.cluster.leader().ListDatabases, newer)
			if (err == nil) != tc.byName {
				t.Errorf("a call with no Leader RPC, relayed: %v; want an answer only from a leader that serves it by name", err)
			}
			stream := &backupStream{ctx: ctx}
			if err := follower.cluster.Backup(&idnodev1.BackupRequest{}, stream); err != nil || !bytes.Contains(stream.data(), []byte("billing")) {
				t.Fatalf("Backup through the follower: %q, %v; want the leader's backup, which has billing", stream.data(), err)
			}
		})
	}
}

// otherMember is a follower of the fake cluster's leader, A-1.
type otherMember struct{ *fakeCluster }

func (otherMember) ID() string { return "B-1" }

// backupStream is the caller's end of a Backup served in-process.
type backupStream struct {
	grpc.ServerStream
	ctx    context.Context
	chunks []*idnodev1.BackupChunk
}

func (b *backupStream) Context() context.Context { return b.ctx }

func (b *backupStream) data() []byte {
	var out []byte
	for _, c := range b.chunks {
		out = append(out, c.GetData()...)
	}
	return out
}

func (b *backupStream) Send(c *idnodev1.BackupChunk) error {
	b.chunks = append(b.chunks, c)
	return nil
}
