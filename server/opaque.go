package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Opaque IDs (docs/opaque-ids.md): an admin turns collections of a database opaque, for good,
// and from then on the node answers their identities as FF1 forms under the database's key
// (opaqueids.go), which only the admin role reads back (opaqueexplain.go).

// MakeOpaque turns collections of a database opaque (and its numeric IDs, with numeric), on
// the leader. An admin call (adminMethods).
func (s *clusterService) MakeOpaque(ctx context.Context, req *idnodev1.MakeOpaqueRequest) (*idnodev1.OpaqueStatus, error) {
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	if len(req.GetCollections()) == 0 && !req.GetNumeric() {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidInput, "name at least one collection, or numeric: nothing to make opaque")
	}
	if n := len(req.GetCollections()); n > fsm.MaxOpaqueCollections {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidInput,
			fmt.Sprintf("%d collections; a database has at most %d opaque ones", n, fsm.MaxOpaqueCollections))
	}
	for _, c := range req.GetCollections() {
		if err := docid.ValidateName("collection", c); err != nil {
			return nil, toStatus(err)
		}
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().MakeOpaque, viaCluster(s.core, idnodev1.ClusterServiceClient.MakeOpaque, nil))
}

// MakeOpaque runs on the leader. It makes a key for the database every time; the state
// machine keeps the first key a database gets and ignores the others, so two calls racing
// for a new database agree on one key, as two leaders proposing a cluster secret do.
func (l clusterLeader) MakeOpaque(ctx context.Context, req *idnodev1.MakeOpaqueRequest) (*idnodev1.OpaqueStatus, error) {
	key := make([]byte, fsm.OpaqueKeyLen)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	setting, err := propose(ctx, l.s.core, fsm.ProposeMakeOpaque, &raftv1.MakeOpaque{
		Database: req.GetDatabase(), Collections: req.GetCollections(), Numeric: req.GetNumeric(), Key: key,
	})
	if err != nil {
		return nil, err
	}
	db := fsm.DatabaseName(req.GetDatabase())
	l.s.log.Warn("opaque IDs made", "database", db, "collections", strings.Join(setting.Collections, ","),
		"numeric", setting.Numeric, "key_fingerprint", setting.Fingerprint())
	return opaqueStatus(db, setting), nil
}

// opaqueStatus is a database's opaque setting as an answer: the key's fingerprint, never the
// key.
func opaqueStatus(db string, setting fsm.OpaqueSetting) *idnodev1.OpaqueStatus {
	return &idnodev1.OpaqueStatus{Database: db, Collections: setting.Collections, Numeric: setting.Numeric, KeyFingerprint: setting.Fingerprint()}
}

// opaqueForms is the node's side of opaque IDs for the services that answer them: which IDs
// are forms, how they are written and read back, and who sees their values. It reads the
// core's state and configuration and holds nothing of its own.
type opaqueForms struct{ *core }

// forms is the core's opaqueForms.
func (s *core) forms() opaqueForms { return opaqueForms{s} }

// readsValues reports whether the caller has the admin role for database db's opaque IDs,
// whose values only the admin role sees (ListIdentities, Explain): a cluster admin, by the
// same rights checkAdmin lets through (adminBy: a certificate, the admin token, or on a node
// without a token, this machine or another node), or an API key of db with the admin role,
// which may seed its counters anyway. Nothing a caller sets in its request decides it. It is
// asked where a call arrives: a call relayed to the leader comes from a node there.
func (s opaqueForms) readsValues(ctx context.Context, db string) bool {
	if s.adminBy(ctx) != "" {
		return true
	}
	for _, token := range bearerTokens(ctx) {
		if k, ok := s.keyOf(ctx, token); ok && k.Database == fsm.DatabaseName(db) && k.Role == fsm.RoleAdmin {
			return true
		}
	}
	return false
}

// opaqueRefusal refuses a call that would publish an opaque collection's values (NextIdentity)
// or let a client mint without the key (a worker lease in an opaque-numeric database).
func opaqueRefusal(msg string) error {
	return reason.Error(codes.FailedPrecondition, reason.OpaqueCollection, msg)
}
