package client

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// MakeOpaque turns collections of a database ("" is c's, see WithDatabase, else "default")
// opaque through c, and with numeric its numeric IDs, for good (an admin call): from then on
// Generate answers forms such as orders/KC6HECSWE6SX7 that hide the counter's values
// (docs/opaque-ids.md), and NextIdentity on them is FAILED_PRECONDITION, reason
// OPAQUE_COLLECTION. The leader makes the database's key the first time; it is never sent to a
// client. The answer is the database's whole setting: its opaque collections as stored
// (folded, sorted) and the key's fingerprint, which tells two clusters' keys apart. Calling it
// again with the same or more collections only adds, so a retry is safe and the call fails
// over like a read.
//
// It is a function rather than a method of Client, which declares as many methods as one type
// may (server/methodcount_test.go).
func MakeOpaque(ctx context.Context, c *Client, database string, collections []string, numeric bool) (*idnodev1.OpaqueStatus, error) {
	req := &idnodev1.MakeOpaqueRequest{Database: database, Collections: collections, Numeric: numeric}
	return unaryCall(ctx, c.callLeaderRepeatable, clusterOf, idnodev1.ClusterServiceClient.MakeOpaque, req)
}
