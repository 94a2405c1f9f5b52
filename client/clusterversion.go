package client

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// ClusterVersion reports the cluster version from the leader: the version finalised, what each
// member's build supports, and the lowest a downgrade may go to.
func (a Admin) ClusterVersion(ctx context.Context) (*idnodev1.ClusterVersionResponse, error) {
	return unaryCall(ctx, a.fo.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.ClusterVersion, &idnodev1.ClusterVersionRequest{})
}

// SetClusterVersion finalises a higher cluster version or lowers it (an admin call: see
// WithAdminToken). Setting a version twice changes nothing, so it fails over like Status.
func (a Admin) SetClusterVersion(ctx context.Context, version uint32) (*idnodev1.ClusterVersionResponse, error) {
	return unaryCall(ctx, a.fo.call, clusterOf, idnodev1.ClusterServiceClient.SetClusterVersion, &idnodev1.SetClusterVersionRequest{Version: version})
}

// ReleaseOwner gives back every ID owner claimed in the client's database (cluster version 2:
// FAILED_PRECONDITION naming the nodes on older builds until it is finalised).
func (a Admin) ReleaseOwner(ctx context.Context, owner string) (int64, error) {
	resp, err := unaryCall(ctx, a.fo.callLeader, idsOf, idnodev1.IdServiceClient.ReleaseOwner, &idnodev1.ReleaseOwnerRequest{Owner: owner})
	return resp.GetReleased(), err
}
