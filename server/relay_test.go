package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/memnet"
)

// A follower relays a call to the leader by the public method's name, and to a leader whose
// build serves only the Leader service (the builds before the relay by name) through that.
// Each leader here serves one way only, so an answer proves the way it came.
func TestFollowerRelaysByNameAndToOlderLeaders(t *testing.T) {
	t.Parallel()
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
			leader := New(Config{Tag: "A"}, &fakeCluster{leader: true, fsm: stateAt(t, 1, "billing")}, nil)
			t.Cleanup(leader.Close)
			gi := grpc.NewServer()
			tc.serve(gi, leader)
			follower := New(Config{Tag: "B", Dial: serve(t, gi)}, otherMember{&fakeCluster{fsm: fsm.New()}}, nil)
			t.Cleanup(follower.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			dbs, err := follower.cluster.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
			if err != nil || len(dbs.GetDatabases()) != 2 || dbs.GetDatabases()[0].GetName() != "billing" {
				t.Fatalf("ListDatabases through the follower = %v, %v; want the leader's billing and default", dbs, err)
			}
			// A call newer than the Leader service has no way to an older leader.
			newer := viaCluster(follower.core, idnodev1.ClusterServiceClient.ListDatabases, nil)
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

// stateAt is an FSM finalised at cluster version v, with the databases dbs.
func stateAt(t *testing.T, v uint32, dbs ...string) *fsm.FSM {
	t.Helper()
	state := fsm.New()
	apply := func(c fsm.CommandType, msg proto.Message) {
		data, err := fsm.Encode(c, msg)
		if err != nil {
			t.Fatal(err)
		}
		if err, ok := state.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
			t.Fatal(err)
		}
	}
	for _, db := range dbs {
		apply(fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: db})
	}
	apply(fsm.SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: v})
	return state
}

// serve serves gi on an in-memory listener until the test ends, and returns a Dial to it: a
// test may run in a synctest bubble, whose clock a socket would stop.
func serve(t *testing.T, gi *grpc.Server) forward.Dialer {
	t.Helper()
	mem := memnet.New()
	lis := mem.Listen()
	go func() { _ = gi.Serve(lis) }()
	t.Cleanup(gi.Stop)
	return func(ctx context.Context, _ string) (net.Conn, error) {
		return mem.Dial(ctx, lis.Addr().String())
	}
}

// internalServer is leader's internal server as cmd/idnode makes it, its interceptors
// included, with its services registered.
func internalServer(leader *Server) *grpc.Server {
	gi := grpc.NewServer(leader.InternalServerOptions()...)
	leader.RegisterInternal(gi)
	return gi
}

// A follower on an older build relays through the Leader service. A leader serves it while the
// cluster version is below the one that retires it, and refuses it once that is finalised,
// saying why, for a unary call as for a stream.
func TestALeaderServesTheLeaderServiceUntilTheClusterVersionRetiresIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version uint32
		retired bool
	}{{relayByNameVersion - 1, false}, {relayByNameVersion, true}} {
		t.Run(fmt.Sprintf("at version %d", tc.version), func(t *testing.T) {
			leader := New(Config{Tag: "A"}, &fakeCluster{leader: true, fsm: stateAt(t, tc.version, "billing")}, nil)
			t.Cleanup(leader.Close)
			conn, err := grpc.NewClient("passthrough:///leader", grpc.WithContextDialer(serve(t, internalServer(leader))),
				grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			old := forwardv1.NewLeaderClient(conn)

			dbs, err := old.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
			if tc.retired {
				wantRetired(t, "ListDatabases through the Leader service", err)
			} else if err != nil || len(dbs.GetDatabases()) != 2 {
				t.Fatalf("ListDatabases through the Leader service = %v, %v; want the leader's two databases", dbs, err)
			}
			backup, err := old.Backup(ctx, &idnodev1.BackupRequest{})
			if err == nil {
				_, err = backup.Recv()
			}
			if tc.retired {
				wantRetired(t, "Backup through the Leader service", err)
			} else if err != nil {
				t.Fatalf("Backup through the Leader service: %v", err)
			}
			// The relay by name is served at every version.
			byName := leaderHalves(idnodev1.NewClusterServiceClient)(conn)
			if dbs, err := byName.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{}); err != nil || len(dbs.GetDatabases()) != 2 {
				t.Fatalf("ListDatabases by name = %v, %v; want the leader's two databases", dbs, err)
			}
		})
	}
}

// wantRetired checks that err is the refusal of a call through the retired Leader service.
func wantRetired(t *testing.T, what string, err error) {
	t.Helper()
	msg := status.Convert(err).Message()
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(msg, "Leader service") ||
		!strings.Contains(msg, fmt.Sprintf("cluster version %d", relayByNameVersion)) {
		t.Fatalf("%s: %v; want FAILED_PRECONDITION saying which cluster version retired the Leader service", what, err)
	}
}

// Once the cluster version retires the Leader service, a follower relays only by name: a
// leader that serves the Leader service alone (a build from before the relay by name) is not
// sent the call a second time through it, and the follower passes on the leader's refusal.
func TestAFollowerRelaysOnlyByNameOnceTheLeaderServiceIsRetired(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version  uint32
		answered bool
	}{{relayByNameVersion - 1, true}, {relayByNameVersion, false}} {
		t.Run(fmt.Sprintf("at version %d", tc.version), func(t *testing.T) {
			leader := New(Config{Tag: "A"}, &fakeCluster{leader: true, fsm: stateAt(t, 1, "billing")}, nil)
			t.Cleanup(leader.Close)
			gi := grpc.NewServer()
			forwardv1.RegisterLeaderServer(gi, leaderService{idLeader: leader.ids.leader(), clusterLeader: leader.cluster.leader(), seriesLeader: leader.series.leader()})
			follower := New(Config{Tag: "B", Dial: serve(t, gi)}, otherMember{&fakeCluster{fsm: stateAt(t, tc.version)}}, nil)
			t.Cleanup(follower.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			dbs, err := follower.cluster.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
			if answered := err == nil && len(dbs.GetDatabases()) == 2; answered != tc.answered {
				t.Errorf("ListDatabases through the follower = %v, %v; want an answer: %v", dbs, err, tc.answered)
			}
			stream := &backupStream{ctx: ctx}
			err = follower.cluster.Backup(&idnodev1.BackupRequest{}, stream)
			if answered := err == nil && bytes.Contains(stream.data(), []byte("billing")); answered != tc.answered {
				t.Errorf("Backup through the follower: %q, %v; want an answer: %v", stream.data(), err, tc.answered)
			}
			backup := &backupStream{ctx: ctx}
			if err := leader.cluster.Backup(&idnodev1.BackupRequest{}, backup); err != nil {
				t.Fatal(err)
			}
			restore := &restoreStream{ctx: ctx, data: backup.data()}
			err = follower.cluster.Restore(restore)
			if answered := err == nil && restore.resp != nil; answered != tc.answered {
				t.Errorf("Restore through the follower: %v, %v; want an answer: %v", restore.resp, err, tc.answered)
			}
		})
	}
}

// restoreStream is the caller's end of a Restore served in-process: it sends data as one chunk.
type restoreStream struct {
	grpc.ServerStream
	ctx  context.Context
	data []byte
	sent bool
	resp *idnodev1.RestoreResponse
}

func (r *restoreStream) Context() context.Context { return r.ctx }

func (r *restoreStream) Recv() (*idnodev1.RestoreChunk, error) {
	if r.sent {
		return nil, io.EOF
	}
	r.sent = true
	return &idnodev1.RestoreChunk{Data: r.data}, nil
}

func (r *restoreStream) SendAndClose(resp *idnodev1.RestoreResponse) error {
	r.resp = resp
	return nil
}
