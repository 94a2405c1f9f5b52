package server_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/helpers/poll"
)

// replicaCheckCluster is a 3-node cluster whose own cadence never fires during a test: the
// test drives each comparison through CheckReplicas, the call the cadence's comparison is. It
// runs in virtual time: the caller's synctest bubble.
func replicaCheckCluster(t *testing.T) (*testCluster, string, idnodev1.ClusterServiceClient) {
	t.Helper()
	c := newVirtualTestClusterWith(t, 3, func(sc server.Config) server.Config {
		sc.ReplicaCheckInterval = time.Hour
		return sc
	})
	leader := c.waitLeader(startupTimeout, c.Tags()...)
	return c, leader, idnodev1.NewClusterServiceClient(c.Dial(t, leader))
}

// divergeCounter is the test's hook into one replica: it applies an identity increment to
// that node's FSM alone, outside the log, so its state differs from the others'.
func divergeCounter(t *testing.T, n *testNode) {
	t.Helper()
	data, err := fsm.Encode(fsm.IdentityBatchCommand, &raftv1.IdentityBatch{Increments: []*raftv1.IdentityIncrement{{Name: "flipped", Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	f := n.Node.FSM()
	index, _, _ := f.Digest()
	if out, ok := f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: data}).(error); ok {
		t.Fatal(out)
	}
}

func checkReplicas(t *testing.T, cl idnodev1.ClusterServiceClient) *idnodev1.ReplicaCheck {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
	defer cancel()
	rc, err := cl.CheckReplicas(ctx, &idnodev1.CheckReplicasRequest{})
	if err != nil {
		t.Fatalf("CheckReplicas: %v", err)
	}
	return rc
}

func verdicts(rc *idnodev1.ReplicaCheck) map[string]string {
	out := map[string]string{}
	for _, m := range rc.GetMembers() {
		out[m.GetTag()] = m.GetVerdict()
	}
	return out
}

// With no divergence every member agrees at every mark, and each mark is a later index.
func TestReplicaCheckAgreesOverSeveralMarks(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _, cl := replicaCheckCluster(t)
		var last uint64
		for range 4 {
			rc := checkReplicas(t, cl)
			if rc.GetMismatches() != 0 || rc.GetIndex() <= last || len(rc.GetMajorityDigest()) != fsm.DigestLen {
				t.Fatalf("check: %v", rc)
			}
			for _, tag := range c.Tags() {
				if v := verdicts(rc)[tag]; v != "agrees" {
					t.Fatalf("mark %d: member %s %q, want agrees (%v)", rc.GetIndex(), tag, v, rc)
				}
			}
			last = rc.GetIndex()
		}
	})
}

// A follower whose counter was flipped outside the log is named at the next mark, with its
// digest, the majority's and the part of the state that differs (its identities), and no
// other member is; Status shows the same comparison.
func TestReplicaCheckNamesADivergedFollower(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, leader, cl := replicaCheckCluster(t)
		if rc := checkReplicas(t, cl); rc.GetMismatches() != 0 {
			t.Fatalf("before the flip: %v", rc)
		}
		var diverged string
		for _, tag := range c.Tags() {
			if tag != leader {
				diverged = tag
				break
			}
		}
		divergeCounter(t, c.Node(diverged))
		rc := checkReplicas(t, cl)
		if rc.GetMismatches() != 1 {
			t.Fatalf("after flipping %s: %v", diverged, rc)
		}
		for _, m := range rc.GetMembers() {
			want := "agrees"
			if m.GetTag() == diverged {
				want = "differs"
			}
			if m.GetVerdict() != want {
				t.Fatalf("member %s %q, want %q (%v)", m.GetTag(), m.GetVerdict(), want, rc)
			}
			if m.GetTag() == diverged && (len(m.GetDigest()) != fsm.DigestLen || bytes.Equal(m.GetDigest(), rc.GetMajorityDigest())) {
				t.Fatalf("the diverged member's digest %x, the majority's %x", m.GetDigest(), rc.GetMajorityDigest())
			}
			if want := map[bool]string{true: "differs in identities"}[m.GetTag() == diverged]; m.GetDetail() != want {
				t.Fatalf("member %s's detail is %q, want %q", m.GetTag(), m.GetDetail(), want)
			}
		}
		st, err := c.Status(leader)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.GetReplicaCheck(); got.GetIndex() != rc.GetIndex() || got.GetMismatches() != 1 {
			t.Fatalf("Status shows %v, the check answered mark %d", got, rc.GetIndex())
		}
	})
}

// A cluster finalised below fsm.DigestMarkVersion is never marked: a member on an older build
// would skip the mark and never report.
func TestReplicaCheckWaitsForTheClusterVersion(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		_, _, cl := replicaCheckCluster(t)
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		if _, err := cl.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: fsm.DigestMarkVersion - 1}); err != nil {
			t.Fatal(err)
		}
		_, err := cl.CheckReplicas(ctx, &idnodev1.CheckReplicasRequest{})
		refusedSaying(t, "a check below the version", err, "replica checks need cluster version")
	})
}

// The leader's own cadence names a diverged follower within one interval, and Status shows
// it. The cluster runs in a synctest bubble, so the minute passes in virtual time.
func TestReplicaCheckCadenceNamesADivergedFollower(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 3)
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		var diverged string
		for _, tag := range c.Tags() {
			if tag != leader {
				diverged = tag
				break
			}
		}
		divergeCounter(t, c.Node(diverged))
		flipped := time.Now()
		var rc *idnodev1.ReplicaCheck
		// Asked every harnessPoll, the leader would answer 3,000 Status calls in the virtual
		// minute, each costing real CPU time though no virtual time; asked once a virtual
		// second, it answers 60, and the bound below still tells a late check.
		poll.Until(t, "a check after the flip", server.DefaultReplicaCheckInterval+convergeTimeout, time.Second, func() error {
			st, err := c.Status(leader)
			if err != nil {
				return err
			}
			if rc = st.GetReplicaCheck(); rc == nil || !time.UnixMilli(rc.GetAtMs()).After(flipped) {
				return fmt.Errorf("last check %v", rc)
			}
			return nil
		})
		if took := time.Since(flipped); took > server.DefaultReplicaCheckInterval+convergeTimeout {
			t.Fatalf("the first check after the flip came %v later", took)
		}
		for tag, v := range verdicts(rc) {
			if want := map[bool]string{true: "differs", false: "agrees"}[tag == diverged]; v != want {
				t.Fatalf("member %s %q, want %q: %v", tag, v, want, rc)
			}
		}
	})
}

// A check asked of a follower waits for the leader's whole comparison, however long the
// members take to report: the leader waits up to its probe timeout for each member's digest,
// one after another, well past forward.Unary's 1.5 s bound. Here the leader's Raft link to
// one follower is cut, so that follower never applies the mark and the leader waits the full
// probe timeout for it; the check, asked of the other follower, must still come back, naming
// the cut-off follower as not reporting.
func TestReplicaCheckViaAFollowerWaitsForSlowMembers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, leader, _ := replicaCheckCluster(t)
		var followers []string
		for _, tag := range c.Tags() {
			if tag != leader {
				followers = append(followers, tag)
			}
		}
		lagging, via := followers[0], followers[1]
		c.Node(leader).Trans.Disconnect(c.Node(lagging).RaftAddr)
		t.Cleanup(func() { c.Node(leader).Trans.Connect(c.Node(lagging).RaftAddr, c.Node(lagging).Trans) })
		cl := idnodev1.NewClusterServiceClient(c.Dial(t, via))
		began := time.Now()
		rc := checkReplicas(t, cl)
		if v := verdicts(rc)[lagging]; v != "not reporting" {
			t.Fatalf("member %s %q after %v, want not reporting (%v)", lagging, v, time.Since(began), rc)
		}
		if v := verdicts(rc)[via]; v != "agrees" {
			t.Fatalf("member %s %q, want agrees (%v)", via, v, rc)
		}
	})
}
