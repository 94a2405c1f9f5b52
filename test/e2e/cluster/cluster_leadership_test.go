package cluster

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// TestClusterTransferLeadership hands leadership to a chosen follower through a node that is
// not the leader (the call is relayed), checks every node then names the new leader, and that
// identities continue above everything acknowledged before.
func TestClusterTransferLeadership(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	for i := range 6 {
		c.MustIdentity(rec, "orders", 1, e2etest.ClusterTags[i%3])
	}
	before, _ := rec.MaxIdentity("orders")
	old := c.Leader()
	followers := c.Others(old)
	target, via := followers[0], followers[1]

	// Each transfer is asked again after a refusal for want of a leader, as a client would: a
	// transfer to the node that leads is a no-op that names it, so a retry of one that was
	// carried out answers as the first would have.
	transfer := func(via, to string) (*idnodev1.TransferLeadershipResponse, error) {
		return e2etest.Retried(func(ctx context.Context) (*idnodev1.TransferLeadershipResponse, error) {
			return c.Admin[via].TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{Tag: to})
		})
	}
	resp, err := transfer(via, target)
	if err != nil {
		t.Fatalf("TransferLeadership to %s via %s: %v", target, via, err)
	}
	if resp.GetLeader() != target {
		t.Fatalf("TransferLeadership answered leader %q, want %s", resp.GetLeader(), target)
	}
	for _, tag := range e2etest.ClusterTags {
		if got := c.Leader(tag); got != target {
			t.Errorf("Status via %s names leader %s after the transfer, want %s", tag, got, target)
		}
	}
	first, _ := c.MustIdentity(rec, "orders", 1, old)
	if first <= before {
		t.Errorf("identity after the transfer = %d, want above %d", first, before)
	}

	// Transferring to the leader itself is a no-op; to an unknown tag, NotFound.
	if resp, err := transfer(old, target); err != nil || resp.GetLeader() != target {
		t.Errorf("transfer to the current leader = %v, %v; want leader %s", resp, err, target)
	}
	if _, err := transfer(old, "Q"); status.Code(err) != codes.NotFound {
		t.Errorf("transfer to an unknown tag = %v, want NotFound", err)
	}
	e2etest.CheckHistory(t, rec)
}
