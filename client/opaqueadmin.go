package client

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// MakeOpaque turns collections of database (empty: c's, see WithDatabase) opaque through c,
// and its numeric IDs with numeric, for good (an admin call: see WithAdminToken), and returns
// the database's opaque setting: its opaque collections, folded and sorted, and its key's
// fingerprint (docs/opaque-ids.md). It only adds, so a repeat changes nothing and it fails
// over like Status. It is a function rather than a method of Client, which declares as many
// methods as one type may (server/methodcount_test.go).
func MakeOpaque(ctx context.Context, c *Client, database string, collections []string, numeric bool) (*idnodev1.OpaqueStatus, error) {
	return unaryCall(ctx, c.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.MakeOpaque,
		&idnodev1.MakeOpaqueRequest{Database: database, Collections: collections, Numeric: numeric})
}
