package forward

import (
	"context"
	"crypto/subtle"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The cluster secret: every node-to-node call carries it, and the internal server
// refuses a call without it once its node knows it. It keeps clients that can reach the Raft
// port out of the internal services when TLS is off (with TLS, mutual TLS already does, and
// the secret is checked as well). Without TLS it crosses the network in the clear: it keeps
// out callers, not eavesdroppers. The leader sets it through Raft when it finds none (at
// bootstrap), and a joining node learns it with the log.

// secretHeader carries the secret (binary metadata: gRPC base64-encodes it).
const secretHeader = "x-idnode-cluster-secret-bin"

// Secret returns the cluster's secret, or nil while the node does not know one. A nil Secret
// is a cluster without one.
type Secret func() []byte

func (s Secret) get() []byte {
	if s == nil {
		return nil
	}
	return s()
}

// GetRequestMetadata makes Secret the per-call credentials of every connection to other nodes.
func (s Secret) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	if k := s.get(); len(k) > 0 {
		return map[string]string{secretHeader: string(k)}, nil
	}
	return nil, nil
}

// RequireTransportSecurity is false: the secret is what protects a cluster without TLS.
func (Secret) RequireTransportSecurity() bool { return false }

// check refuses a call that does not carry the secret; verified says it carried the one
// this node knows. A node that knows none yet (a new cluster before its first leader set one,
// a node still catching up) lets calls through, unverified.
func (s Secret) check(ctx context.Context) (verified bool, err error) {
	want := s.get()
	if len(want) == 0 {
		return false, nil
	}
	for _, got := range metadata.ValueFromIncomingContext(ctx, secretHeader) {
		if subtle.ConstantTimeCompare([]byte(got), want) == 1 {
			return true, nil
		}
	}
	return false, status.Error(codes.Unauthenticated,
		"this is the Raft port, for the cluster's own nodes: a node-to-node call must carry the cluster secret. Clients call the gRPC port")
}
