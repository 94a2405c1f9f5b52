package client

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// CheckReplicas has the leader mark the log for a state digest, ask every member for its
// digest at the mark, and answer the comparison (an admin call: see WithAdminToken). A second
// check only marks again, so it fails over like Status.
func (a Admin) CheckReplicas(ctx context.Context) (*idnodev1.ReplicaCheck, error) {
	return unaryCall(ctx, a.fo.call, clusterOf, idnodev1.ClusterServiceClient.CheckReplicas, &idnodev1.CheckReplicasRequest{})
}
