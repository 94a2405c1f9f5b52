package client

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// bearerToken sends the cluster's admin token or an API key with every call, as the
// "authorization: Bearer" header the nodes check. Calls that need none ignore it.
type bearerToken string

// AdminTokenCredentials returns per-call credentials that send token as
// "authorization: Bearer <token>", for code that dials a node with plain gRPC
// (grpc.WithPerRPCCredentials) rather than through Dial and WithAdminToken.
func AdminTokenCredentials(token string) credentials.PerRPCCredentials { return bearerToken(token) }

func (t bearerToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

// RequireTransportSecurity is false so that the token also works on plaintext connections:
// with true, gRPC refuses every call of such a connection, and clusters on loopback or on a
// private compose network (the README's, the tests') set a token without TLS. Over any other
// network the token then crosses in clear text: use TLS there (WithTransportCredentials).
func (bearerToken) RequireTransportSecurity() bool { return false }

// WithAdminToken sends the cluster's admin token (idnode --admin-token) with every call, so
// that admin calls are accepted.
func WithAdminToken(token string) Option { return withBearer("WithAdminToken", token) }

// WithAPIKey sends an API key (ClusterService/CreateKey, idctl key create) with every call:
// once a cluster has keys, ID calls need one of their database. Use it with WithDatabase for a
// key of a database other than "default".
func WithAPIKey(key string) Option { return withBearer("WithAPIKey", key) }

func withBearer(option, token string) Option {
	return func(o *options) error {
		if token == "" {
			return errors.New(option + ": empty; leave the option out for a cluster without one")
		}
		for _, r := range token {
			// gRPC sends only printable ASCII in a header; anything else fails every call.
			if r < ' ' || r > '~' {
				return errors.New(option + ": only printable ASCII characters can be sent")
			}
		}
		if o.bearer {
			return errors.New(option + ": a Client sends one bearer credential: the admin token or an API key")
		}
		o.bearer = true
		o.dialOpts = append(o.dialOpts, grpc.WithPerRPCCredentials(bearerToken(token)))
		return nil
	}
}
