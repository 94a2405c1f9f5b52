package client

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// database sends the database every call of a Client works in, as metadata "idnode-database"
// (the server reads it when a request leaves its database field empty).
type database string

func (d database) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"idnode-database": string(d)}, nil
}

// RequireTransportSecurity is false: a database name is no secret.
func (database) RequireTransportSecurity() bool { return false }

// WithDatabase makes every call of the Client work in the database name (see
// ClusterService/CreateDatabase): its identities, HiLo ranges and request ids are its own.
// Without it calls work in the database "default". To use two databases, use two Clients.
func WithDatabase(name string) Option {
	return func(o *options) error {
		if err := docid.ValidateDatabaseName(name); err != nil {
			return errors.New("WithDatabase: " + err.Error())
		}
		o.dialOpts = append(o.dialOpts, grpc.WithPerRPCCredentials(database(name)))
		o.database = name
		return nil
	}
}

// CreateDatabase creates the database req names, with its limits (an admin call). A name that
// was deleted comes back with the counters it had. Tried on another node only when the first
// did nothing.
func (c *Client) CreateDatabase(ctx context.Context, req *idnodev1.CreateDatabaseRequest) error {
	return c.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		_, err := n.cluster.CreateDatabase(ctx, req, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
}

// DeleteDatabase deletes a database (an admin call): its calls are refused with NOT_FOUND.
// Without force it is refused while the database has counters. Tried on another node only
// when the first did nothing.
func (c *Client) DeleteDatabase(ctx context.Context, name string, force bool) error {
	return c.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		_, err := n.cluster.DeleteDatabase(ctx, &idnodev1.DeleteDatabaseRequest{Name: name, Force: force}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
}

// ListDatabases lists the databases, "default" among them, as the leader knows them.
func (c *Client) ListDatabases(ctx context.Context) ([]*idnodev1.DatabaseStatus, error) {
	resp, err := unaryCall(ctx, c.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.ListDatabases, &idnodev1.ListDatabasesRequest{})
	return resp.GetDatabases(), err
}

// CreateKey makes an API key for database with role ("reader", "writer" or "admin") and
// returns its id and the key, which is shown only this once (an admin call). Not tried again
// on another node once a node had it: a second key would be made.
func (c *Client) CreateKey(ctx context.Context, database, role string) (id, key string, err error) {
	var resp *idnodev1.CreateKeyResponse
	err = c.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		var err error
		resp, err = n.cluster.CreateKey(ctx, &idnodev1.CreateKeyRequest{Database: database, Role: role}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
	return resp.GetId(), resp.GetKey(), err
}

// DeleteKey deletes an API key (an admin call).
func (c *Client) DeleteKey(ctx context.Context, id string) error {
	return c.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		_, err := n.cluster.DeleteKey(ctx, &idnodev1.DeleteKeyRequest{Id: id}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
}

// ListKeys lists the API keys, without their secrets (an admin call).
func (c *Client) ListKeys(ctx context.Context) ([]*idnodev1.KeyStatus, error) {
	resp, err := unaryCall(ctx, c.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.ListKeys, &idnodev1.ListKeysRequest{})
	return resp.GetKeys(), err
}
