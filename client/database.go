package client

import (
	"context"
	"errors"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/docid"
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
