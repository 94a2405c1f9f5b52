package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// API keys. A key is "idk_<id>_<secret>": the id finds it in the FSM, which keeps
// only the SHA-256 of the secret. A cluster without keys works as before; once it has one,
// every IdService call needs a key of its database with the role the call needs (or the
// admin token). Admin calls still need the admin token.
const keyPrefix = "idk_"

// roleFor is the role an IdService or SeriesService method needs, "" for every other method.
func roleFor(method string) string {
	switch method {
	case idnodev1.IdService_ListIdentities_FullMethodName, idnodev1.IdService_GetClaims_FullMethodName, idnodev1.IdService_ListHiLo_FullMethodName,
		idnodev1.SeriesService_ListSeries_FullMethodName, idnodev1.SeriesService_Journal_FullMethodName,
		idnodev1.SeriesService_VerifySeries_FullMethodName, idnodev1.IdService_ListWorkers_FullMethodName:
		return fsm.RoleReader
	case idnodev1.IdService_SeedIdentity_FullMethodName, idnodev1.IdService_SeedHiLo_FullMethodName,
		idnodev1.SeriesService_CreateSeries_FullMethodName, idnodev1.IdService_ReleaseOwner_FullMethodName:
		return fsm.RoleAdmin
	case idnodev1.IdService_Generate_FullMethodName, idnodev1.IdService_NextIdentity_FullMethodName,
		idnodev1.IdService_NextHiLo_FullMethodName, idnodev1.IdService_ReturnHiLo_FullMethodName,
		idnodev1.IdService_Claim_FullMethodName, idnodev1.IdService_Release_FullMethodName,
		idnodev1.SeriesService_Issue_FullMethodName, idnodev1.SeriesService_Void_FullMethodName,
		idnodev1.IdService_AcquireWorker_FullMethodName, idnodev1.IdService_RenewWorker_FullMethodName,
		idnodev1.IdService_ReleaseWorker_FullMethodName:
		return fsm.RoleWriter
	}
	return ""
}

// bearerTokens are the bearer tokens a call carries.
func bearerTokens(ctx context.Context) []string {
	var out []string
	for _, v := range metadata.ValueFromIncomingContext(ctx, authorizationHeader) {
		if scheme, token, ok := strings.Cut(strings.TrimSpace(v), " "); ok && strings.EqualFold(scheme, "Bearer") {
			out = append(out, strings.TrimSpace(token))
		}
	}
	return out
}

// checkKey lets an IdService call through when it carries an admin credential (isAdmin), or
// when this node has caught up since its start (startcatchup.go) and the cluster has no keys
// or the call carries a key of its database whose role is enough.
func (s *interceptors) checkKey(ctx context.Context, c *call) error {
	need := c.role
	if need == "" || s.isAdmin(ctx) {
		return nil
	}
	if err := s.checkCaughtUp(ctx); err != nil {
		return err
	}
	if !s.node.FSM().HasKeys() {
		return nil
	}
	name := c.method[strings.LastIndexByte(c.method, '/')+1:]
	if c.dbErr != nil {
		return c.dbErr
	}
	db := c.folded()
	tokens := bearerTokens(ctx)
	if len(tokens) == 0 {
		return status.Errorf(codes.Unauthenticated,
			"this cluster has API keys: %s needs one for database %q, sent as metadata \"authorization: Bearer <key>\" (idctl key create)", name, db)
	}
	for _, token := range tokens {
		k, ok := s.keyOf(ctx, token)
		switch {
		case !ok:
			continue
		case k.Database != db:
			return status.Errorf(codes.PermissionDenied, "API key %s is for database %q, not %q", k.ID, k.Database, db)
		case fsm.RoleRank(k.Role) < fsm.RoleRank(need):
			return status.Errorf(codes.PermissionDenied, "API key %s is a %s of database %q; %s needs a %s", k.ID, k.Role, db, name, need)
		}
		return nil
	}
	return status.Errorf(codes.Unauthenticated, "%s: the API key is not one of this cluster's (unknown, deleted, or mistyped)", name)
}

// keyOf finds the key token is, comparing the secret's hash in constant time. A key this
// node does not know yet is waited for (catchup.go): the leader may have just created it.
func (s *core) keyOf(ctx context.Context, token string) (fsm.Key, bool) {
	id, secret, ok := strings.Cut(strings.TrimPrefix(token, keyPrefix), "_")
	if !ok || !strings.HasPrefix(token, keyPrefix) {
		return fsm.Key{}, false
	}
	var k fsm.Key
	if !s.knownAfterCatchUp(ctx, func() (ok bool) { k, ok = s.node.FSM().Key(id); return ok }) {
		return fsm.Key{}, false
	}
	sum := sha256.Sum256([]byte(secret))
	return k, subtle.ConstantTimeCompare(sum[:], k.SecretSHA256) == 1
}

func (s *clusterService) CreateKey(ctx context.Context, req *idnodev1.CreateKeyRequest) (*idnodev1.CreateKeyResponse, error) {
	if err := docid.ValidateDatabaseRef(req.GetDatabase()); err != nil {
		return nil, toStatus(err)
	}
	if fsm.RoleRank(req.GetRole()) == 0 {
		return nil, status.Errorf(codes.InvalidArgument, "role must be %s, %s or %s, got %q", fsm.RoleReader, fsm.RoleWriter, fsm.RoleAdmin, req.GetRole())
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().CreateKey, viaCluster(s.core, idnodev1.ClusterServiceClient.CreateKey, forwardv1.LeaderClient.CreateKey))
}

// createKeyLocal makes the key on the leader: the secret never enters the log, only its hash.
func (l clusterLeader) CreateKey(ctx context.Context, req *idnodev1.CreateKeyRequest) (*idnodev1.CreateKeyResponse, error) {
	id, secret := make([]byte, 8), make([]byte, 32)
	_, _ = rand.Read(id) // crypto/rand.Read never fails
	_, _ = rand.Read(secret)
	resp := &idnodev1.CreateKeyResponse{Id: hex.EncodeToString(id)}
	encoded := base64.RawURLEncoding.EncodeToString(secret)
	sum := sha256.Sum256([]byte(encoded))
	if _, err := propose(ctx, l.s.core, fsm.ProposeCreateKey, &raftv1.CreateKey{
		Id: resp.Id, Database: req.GetDatabase(), Role: req.GetRole(), SecretSha256: sum[:],
	}); err != nil {
		return nil, err
	}
	resp.Key = fmt.Sprintf("%s%s_%s", keyPrefix, resp.Id, encoded)
	l.s.log.Info("API key created", "id", resp.Id, "database", fsm.DatabaseName(req.GetDatabase()), "role", req.GetRole())
	return resp, nil
}

func (s *clusterService) DeleteKey(ctx context.Context, req *idnodev1.DeleteKeyRequest) (*idnodev1.DeleteKeyResponse, error) {
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().DeleteKey, viaCluster(s.core, idnodev1.ClusterServiceClient.DeleteKey, forwardv1.LeaderClient.DeleteKey))
}

// DeleteKey runs on the leader.
func (l clusterLeader) DeleteKey(ctx context.Context, req *idnodev1.DeleteKeyRequest) (*idnodev1.DeleteKeyResponse, error) {
	if err := committed(ctx, l.s.core, fsm.ProposeDeleteKey, &raftv1.DeleteKey{Id: req.GetId()}, slog.LevelInfo, "API key deleted", "id", req.GetId()); err != nil {
		return nil, err
	}
	return &idnodev1.DeleteKeyResponse{}, nil
}

func (s *clusterService) ListKeys(ctx context.Context, req *idnodev1.ListKeysRequest) (*idnodev1.ListKeysResponse, error) {
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().ListKeys, viaCluster(s.core, idnodev1.ClusterServiceClient.ListKeys, forwardv1.LeaderClient.ListKeys))
}

// ListKeys runs on the leader.
func (l clusterLeader) ListKeys(ctx context.Context, _ *idnodev1.ListKeysRequest) (*idnodev1.ListKeysResponse, error) {
	return afterBarrier(l.s.core, ctx, func(f *fsm.FSM) *idnodev1.ListKeysResponse {
		out := &idnodev1.ListKeysResponse{}
		for _, k := range f.Keys() {
			out.Keys = append(out.Keys, &idnodev1.KeyStatus{Id: k.ID, Database: k.Database, Role: k.Role})
		}
		return out
	})
}
