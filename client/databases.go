package client

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Databases makes the calls that manage databases and their API keys (docs/databases.md):
// all but List are admin calls. Get one from Client.Databases; it shares the Client's
// connections.
type Databases struct{ fo *failover }

// Databases is the calls that manage databases and API keys.
func (c *Client) Databases() Databases { return Databases{&c.failover} }

// Create creates the database req names, with its limits (an admin call). A name that
// was deleted comes back with the counters it had. Tried on another node only when the first
// did nothing.
func (d Databases) Create(ctx context.Context, req *idnodev1.CreateDatabaseRequest) error {
	return d.fo.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		_, err := n.cluster.CreateDatabase(ctx, req, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
}

// Delete deletes a database (an admin call): its calls are refused with NOT_FOUND.
// Without force it is refused while the database has counters. Tried on another node only
// when the first did nothing.
func (d Databases) Delete(ctx context.Context, name string, force bool) error {
	return d.fo.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		_, err := n.cluster.DeleteDatabase(ctx, &idnodev1.DeleteDatabaseRequest{Name: name, Force: force}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
}

// List lists the databases, "default" among them, as the leader knows them.
func (d Databases) List(ctx context.Context) ([]*idnodev1.DatabaseStatus, error) {
	resp, err := unaryCall(ctx, d.fo.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.ListDatabases, &idnodev1.ListDatabasesRequest{})
	return resp.GetDatabases(), err
}

// CreateKey makes an API key for database with role ("reader", "writer" or "admin") and
// returns its id and the key, which is shown only this once (an admin call). Not tried again
// on another node once a node had it: a second key would be made.
func (d Databases) CreateKey(ctx context.Context, database, role string) (id, key string, err error) {
	var resp *idnodev1.CreateKeyResponse
	err = d.fo.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		var err error
		resp, err = n.cluster.CreateKey(ctx, &idnodev1.CreateKeyRequest{Database: database, Role: role}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
	return resp.GetId(), resp.GetKey(), err
}

// DeleteKey deletes an API key (an admin call).
func (d Databases) DeleteKey(ctx context.Context, id string) error {
	return d.fo.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		_, err := n.cluster.DeleteKey(ctx, &idnodev1.DeleteKeyRequest{Id: id}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
}

// ListKeys lists the API keys, without their secrets (an admin call).
func (d Databases) ListKeys(ctx context.Context) ([]*idnodev1.KeyStatus, error) {
	resp, err := unaryCall(ctx, d.fo.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.ListKeys, &idnodev1.ListKeysRequest{})
	return resp.GetKeys(), err
}
