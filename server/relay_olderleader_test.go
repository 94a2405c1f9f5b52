package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// A member put back on a build from before the relay by name once the cluster was finalised
// at the version that retired the Leader service serves the leader halves only through that
// service, so as the leader it answers a relay by name UNIMPLEMENTED ("unknown service"). A
// follower does not pass that on raw: it refuses the call, FAILED_PRECONDITION, naming the
// leader, the build it runs and the cluster version, for a unary call, a stream and a restore.
func TestAFollowerNamesTheBuildOfALeaderThatCannotTakeARelayByName(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const oldBuild = "v0.9.0 (commit 1234567, go1.25.0)"
		leader := New(Config{Tag: "A"}, &fakeCluster{leader: true, fsm: stateAt(t, 1, "billing")}, nil)
		t.Cleanup(leader.Close)
		gi := grpc.NewServer()
		forwardv1.RegisterLeaderServer(gi, leaderService{idLeader: leader.ids.leader(), clusterLeader: leader.cluster.leader(), seriesLeader: leader.series.leader()})
		healthpb.RegisterHealthServer(gi, olderBuildHealth{build: oldBuild, supports: relayByNameVersion - 1})
		// A registered, on a build of version 3, before the finalisation; then put back.
		state := fsm.New()
		mustApply(t, state, fsm.RegisterNodeCommand, &raftv1.RegisterNode{Tag: "A", Id: "A-1", Incarnation: "i1", RaftAddress: "a:7000", GrpcAddress: "a:7070"})
		mustApply(t, state, fsm.NodeVersionCommand, &raftv1.NodeVersion{Tag: "A", Id: "A-1", Version: relayByNameVersion, Build: "v1.0.0"})
		mustApply(t, state, fsm.SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: relayByNameVersion})
		follower := New(Config{Tag: "B", Dial: serve(t, gi)}, otherMember{&fakeCluster{fsm: state}}, nil)
		t.Cleanup(follower.Close)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()

		_, unary := follower.cluster.ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
		stream := follower.cluster.Backup(&idnodev1.BackupRequest{}, &backupStream{ctx: ctx})
		backup := &backupStream{ctx: ctx}
		if err := leader.cluster.Backup(&idnodev1.BackupRequest{}, backup); err != nil {
			t.Fatal(err)
		}
		restore := follower.cluster.Restore(&restoreStream{ctx: ctx, data: backup.data()})
		for what, err := range map[string]error{"ListDatabases": unary, "Backup": stream, "Restore": restore} {
			msg := status.Convert(err).Message()
			if status.Code(err) != codes.FailedPrecondition || !strings.Contains(msg, "leader A") || !strings.Contains(msg, oldBuild) ||
				!strings.Contains(msg, fmt.Sprintf("cluster is finalised at version %d", relayByNameVersion)) {
				t.Errorf("%s through the follower: %v\nwant FAILED_PRECONDITION naming the leader A, its build %q and the cluster version %d",
					what, err, oldBuild, relayByNameVersion)
			}
		}
	})
}

// olderBuildHealth answers a health probe as a node of an older build does: with its build
// and the cluster version it supports in the header.
type olderBuildHealth struct {
	healthpb.UnimplementedHealthServer
	build    string
	supports uint32
}

func (h olderBuildHealth) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	_ = grpc.SetHeader(ctx, metadata.Pairs(versionHeader, h.build, supportedVersionHeader, strconv.FormatUint(uint64(h.supports), 10)))
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// mustApply applies one command to state.
func mustApply(t *testing.T, state *fsm.FSM, typ fsm.CommandType, msg proto.Message) {
	t.Helper()
	data, err := fsm.Encode(typ, msg)
	if err != nil {
		t.Fatal(err)
	}
	if err, ok := state.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
		t.Fatal(err)
	}
}
