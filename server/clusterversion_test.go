package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// waitVersionsRecorded waits until the leader's FSM holds every node's build as this build.
func waitVersionsRecorded(t *testing.T, c *testCluster, leader string) {
	t.Helper()
	waitFor(t, "every node's cluster version recorded", startupTimeout, func() (bool, string) {
		cv := c.Node(leader).Node.FSM().ClusterVersion()
		for _, tag := range c.Tags() {
			if cv.Nodes[tag].Version != fsm.CurrentVersion {
				return false, fmt.Sprintf("node %s: %+v", tag, cv.Nodes[tag])
			}
		}
		return true, ""
	})
}

// refusedSaying checks that err is FAILED_PRECONDITION with every one of want in its message.
func refusedSaying(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("%s: %v, want FAILED_PRECONDITION", what, err)
	}
	for _, w := range want {
		if !strings.Contains(status.Convert(err).Message(), w) {
			t.Fatalf("%s: %q does not say %q", what, status.Convert(err).Message(), w)
		}
	}
}

func TestANewCommandWaitsForTheClusterVersion(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(startupTimeout, c.Tags()...)
		c.waitServing(startupTimeout, c.Tags()...)
		waitVersionsRecorded(t, c, leader)
		follower := "A"
		if leader == follower {
			follower = "B"
		}
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		ln := c.Node(leader).Node
		if cv := ln.FSM().ClusterVersion(); cv.Finalised != fsm.CurrentVersion {
			t.Fatalf("a new cluster is at version %d, want this build's %d", cv.Finalised, fsm.CurrentVersion)
		}
		ids := idnodev1.NewIdServiceClient(c.Dial(t, follower))
		if _, err := ids.Claim(ctx, &idnodev1.ClaimRequest{Ids: []string{"users/1", "users/2"}, Owner: "importer"}); err != nil {
			t.Fatal(err)
		}

		// As a cluster upgraded from builds before cluster versions: at version 1, with a member
		// (an operator's add, which states no build) still on an older build.
		if _, err := fsm.Propose(ctx, ln, fsm.ProposeSetClusterVersion, &raftv1.SetClusterVersion{Version: 1}); err != nil {
			t.Fatalf("lowering the version before any version-2 command: %v", err)
		}
		admin := idnodev1.NewClusterServiceClient(c.Dial(t, leader))
		if _, err := admin.AddNode(ctx, &idnodev1.AddNodeRequest{Tag: "D", RaftAddress: "inmem-D:7000", GrpcAddress: "127.0.0.1:1", NonVoter: true}); err != nil {
			t.Fatal(err)
		}
		_, err := ids.ReleaseOwner(ctx, &idnodev1.ReleaseOwnerRequest{Owner: "importer"})
		refusedSaying(t, "ReleaseOwner with D on an older build", err, "ReleaseOwner", "cluster version 2", "D (version 1")
		if strings.Contains(status.Convert(err).Message(), leader+" (") {
			t.Errorf("the refusal names upgraded node %s: %v", leader, err)
		}
		if _, err := admin.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "D"}); err != nil {
			t.Fatal(err)
		}
		_, err = ids.ReleaseOwner(ctx, &idnodev1.ReleaseOwnerRequest{Owner: "importer"})
		refusedSaying(t, "ReleaseOwner before finalisation", err, "every node supports it", "finalise")

		if _, err := fsm.Propose(ctx, ln, fsm.ProposeSetClusterVersion, &raftv1.SetClusterVersion{Version: 2}); err != nil {
			t.Fatalf("finalising: %v", err)
		}
		resp, err := ids.ReleaseOwner(ctx, &idnodev1.ReleaseOwnerRequest{Owner: "importer"})
		if err != nil || resp.GetReleased() != 2 {
			t.Fatalf("ReleaseOwner once finalised = %v, %v; want 2 released", resp, err)
		}
	})
}

func TestAJoinBelowTheFinalisedVersionIsRefused(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 1)
		c.waitServing(startupTimeout, "A")
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		admin := idnodev1.NewClusterServiceClient(c.Dial(t, "A"))
		// A build from before cluster versions sends none.
		_, err := admin.AddNode(ctx, &idnodev1.AddNodeRequest{RaftAddress: "inmem-E:7000", GrpcAddress: "127.0.0.1:1", Incarnation: "inc-e"})
		refusedSaying(t, "a join by an older build", err, fmt.Sprintf("finalised at version %d", fsm.CurrentVersion), "supports version 1")
		if len(c.Node("A").Node.Members()) != 1 {
			t.Errorf("the refused node became a member: %v", c.Node("A").Node.Members())
		}
	})
}

func TestFinaliseAndDowngradeThroughTheClusterService(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(startupTimeout, c.Tags()...)
		c.waitServing(startupTimeout, c.Tags()...)
		waitVersionsRecorded(t, c, leader)
		var follower, other string
		for _, tag := range c.Tags() {
			switch {
			case tag == leader:
			case follower == "":
				follower = tag
			default:
				other = tag
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		cl := idnodev1.NewClusterServiceClient(c.Dial(t, follower))
		cv, err := cl.ClusterVersion(ctx, &idnodev1.ClusterVersionRequest{})
		if err != nil || cv.GetFinalised() != fsm.CurrentVersion || cv.GetEffective() != fsm.CurrentVersion || cv.GetDowngradeFloor() != 1 || len(cv.GetMembers()) != 3 {
			t.Fatalf("ClusterVersion = %v, %v", cv, err)
		}
		for _, m := range cv.GetMembers() {
			if m.GetVersion() != fsm.CurrentVersion || m.GetBuild() == "" || !m.GetVoter() {
				t.Errorf("member %v", m)
			}
		}
		if _, err := cl.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: fsm.CurrentVersion + 1}); status.Code(err) != codes.InvalidArgument {
			t.Errorf("a version above this build's = %v, want INVALID_ARGUMENT", err)
		}
		if cv, err = cl.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: 1}); err != nil || cv.GetFinalised() != 1 {
			t.Fatalf("downgrade before any version-2 command = %v, %v", cv, err)
		}
		var st *idnodev1.StatusResponse
		waitFor(t, "the follower's status showing version 1", convergeTimeout, func() (bool, string) {
			st, err = c.Status(follower)
			return err == nil && st.GetClusterVersion().GetFinalised() == 1, fmt.Sprintf("%v, %v", st.GetClusterVersion(), err)
		})

		// A member that does not answer cannot be counted on: its record may be older than its build.
		c.Partition([]string{leader, follower}, []string{other})
		_, err = cl.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: fsm.CurrentVersion})
		refusedSaying(t, "finalising with a member cut off", err, fmt.Sprintf("cannot finalise cluster version %d", fsm.CurrentVersion), other+" does not answer")
		c.Heal()
		waitFor(t, "finalising once every member answers", convergeTimeout, func() (bool, string) {
			cv, err = cl.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: fsm.CurrentVersion})
			return err == nil && cv.GetFinalised() == fsm.CurrentVersion, fmt.Sprintf("%v, %v", cv, err)
		})
		ids := idnodev1.NewIdServiceClient(c.Dial(t, follower))
		if _, err := ids.ReleaseOwner(ctx, &idnodev1.ReleaseOwnerRequest{Owner: "nobody"}); err != nil {
			t.Fatalf("ReleaseOwner once finalised: %v", err)
		}
		_, err = cl.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: 1})
		refusedSaying(t, "a downgrade once the log used version 2", err, "can no longer be lowered", "commands of version 2")
		if cv, err = cl.ClusterVersion(ctx, &idnodev1.ClusterVersionRequest{}); err != nil || cv.GetDowngradeFloor() != 2 || cv.GetFinalised() != fsm.CurrentVersion {
			t.Fatalf("after a version-2 command: %v, %v", cv, err)
		}
		// Version 3 brought no command (it retires the Leader service), so the log never needs it.
		if cv, err = cl.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: 2}); err != nil || cv.GetFinalised() != 2 {
			t.Fatalf("a downgrade to version 2 after a version-2 command = %v, %v", cv, err)
		}
	})
}

// A replica may lose the records (a snapshot from a leader of an older build carries none), or
// hold one the node's build no longer matches: the node states its build again.
func TestANodeStatesItsBuildAgainWhenItsRecordDiffers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(startupTimeout, c.Tags()...)
		c.waitServing(startupTimeout, c.Tags()...)
		waitVersionsRecorded(t, c, leader)
		follower := c.Tags()[0]
		if follower == leader {
			follower = c.Tags()[1]
		}
		ln := c.Node(leader).Node
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		id := c.Node(follower).Node.ID()
		if _, err := fsm.Propose(ctx, ln, fsm.ProposeNodeVersion, &raftv1.NodeVersion{Tag: follower, Id: id, Version: 1, Build: "stale"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "node "+follower+" stating its build again", convergeTimeout, func() (bool, string) {
			nv := ln.FSM().ClusterVersion().Nodes[follower]
			return nv.Version == fsm.CurrentVersion && nv.Build != "stale", fmt.Sprintf("%+v", nv)
		})
	})
}
