package chaostest

// The steps of the operator and machine faults that nemesis-mix shares with their
// own schedules (test/e2e/chaos/operator).

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// RefusedAdds asks, through node via, to add a node under a live tag with new addresses, and a
// node with a free tag at another node's Raft address: both must be ALREADY_EXISTS.
func (r *ChaosRun) RefusedAdds(via string) {
	r.T.Helper()
	victim := r.Others(via)[0]
	spare, spareAlias := r.Cluster.spare()
	for _, req := range []*idnodev1.AddNodeRequest{
		{Tag: victim, RaftAddress: "raft-x:7000", GrpcAddress: "raft-x:7070"},
		{Tag: spare, RaftAddress: r.Cluster.node(victim).alias + ":7000", GrpcAddress: spareAlias + ":7070"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), chaosProbeDeadline)
		_, err := r.c.admin[via].AddNode(ctx, req)
		cancel()
		if status.Code(err) != codes.AlreadyExists {
			r.T.Fatalf("AddNode(tag %q, raft %s) via %s = %v; want ALREADY_EXISTS", req.GetTag(), req.GetRaftAddress(), via, err)
		}
	}
}

// FailedJoinVia starts a new node that joins through node via and then fails, and checks that
// the cluster's members are as they were.
func (r *ChaosRun) FailedJoinVia(via string) {
	r.T.Helper()
	before := r.Members(via)
	_, alias := r.Cluster.spare()
	id := r.Docker.runOnRaftNetwork(r.T, alias, "--join", r.Cluster.node(via).alias+":7070", "--data-dir", "/data",
		"--grpc-addr", "0.0.0.0:7070", "--grpc-advertise", alias+":7070", "--raft-addr", "0.0.0.0:7000",
		"--raft-advertise", alias+":7000", "--metrics-addr", "0.0.0.0:7000")
	code, logs := r.Docker.Exited(r.T, id)
	if code == 0 || !strings.Contains(logs, "address already in use") {
		r.T.Fatalf("the joining node exited with %d; want a failure naming the port in use:\n%s", code, logs)
	}
	if after := r.Members(via); !slices.Equal(after, before) {
		r.T.Fatalf("the failed join changed the cluster:\nbefore %q\nafter  %q\njoiner's output:\n%s", before, after, logs)
	}
}

// Members is what Status (consistent) via tag says of every node: tag, id and voter, sorted.
func (r *ChaosRun) Members(via string) []string {
	r.T.Helper()
	var out []string
	e2etest.Eventually(r.T, chaosLeaderWait, "Status via "+via, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
		defer cancel()
		st, err := r.c.admin[via].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			return err
		}
		out = out[:0]
		for _, n := range st.GetNodes() {
			out = append(out, fmt.Sprintf("%s %s voter=%v", n.GetTag(), n.GetId(), n.GetVoter()))
		}
		return nil
	})
	slices.Sort(out)
	return out
}
