package server

import (
	"context"
	"errors"
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

// databaseHeader names the database for clients that cannot set a request's database field.
const databaseHeader = "idnode-database"

// resolveDatabase is databaseOf without the call's resolved value.
func resolveDatabase(ctx context.Context, field string) (string, error) {
	db := field
	if md := metadata.ValueFromIncomingContext(ctx, databaseHeader); len(md) > 0 {
		if db != "" && !strings.EqualFold(db, md[0]) {
			return "", status.Errorf(codes.InvalidArgument, "the request names database %q and metadata %s names %q: name one", db, databaseHeader, md[0])
		}
		db = md[0]
	}
	if err := docid.ValidateDatabaseRef(db); err != nil {
		return "", toStatus(err)
	}
	return db, nil
}

// localDatabase checks, for the strategies this node answers alone (semantic, GUID,
// server-side), that the database exists once this node has caught up with the leader.
func (s *core) localDatabase(ctx context.Context, db string) error {
	if db == "" || s.knownAfterCatchUp(ctx, func() bool { return s.node.FSM().HasDatabase(db) }) {
		return nil
	}
	return status.Errorf(codes.NotFound, "%v: %q (see ClusterService/ListDatabases)", fsm.ErrDatabaseNotFound, db)
}

func (s *clusterService) CreateDatabase(ctx context.Context, req *idnodev1.CreateDatabaseRequest) (*idnodev1.CreateDatabaseResponse, error) {
	if err := errors.Join(docid.ValidateDatabaseName(req.GetName()),
		fsm.ValidateLimits(req.GetMaxIdentities(), req.GetMaxClaims(), req.GetMaxCallsPerSecond())); err != nil {
		return nil, toStatus(err)
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().CreateDatabase, viaCluster(s.core, idnodev1.ClusterServiceClient.CreateDatabase, forwardv1.LeaderClient.CreateDatabase))
}

// CreateDatabase runs on the leader.
func (l clusterLeader) CreateDatabase(ctx context.Context, req *idnodev1.CreateDatabaseRequest) (*idnodev1.CreateDatabaseResponse, error) {
	if err := committed(ctx, l.s.core, fsm.ProposeCreateDatabase, &raftv1.CreateDatabase{
		Name: req.GetName(), MaxIdentities: req.GetMaxIdentities(), MaxCallsPerSecond: req.GetMaxCallsPerSecond(), MaxClaims: req.GetMaxClaims(),
	}, slog.LevelInfo, "database created", "database", req.GetName()); err != nil {
		return nil, err
	}
	return &idnodev1.CreateDatabaseResponse{}, nil
}

func (s *clusterService) DeleteDatabase(ctx context.Context, req *idnodev1.DeleteDatabaseRequest) (*idnodev1.DeleteDatabaseResponse, error) {
	if err := docid.ValidateDatabaseName(req.GetName()); err != nil {
		return nil, toStatus(err)
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().DeleteDatabase, viaCluster(s.core, idnodev1.ClusterServiceClient.DeleteDatabase, forwardv1.LeaderClient.DeleteDatabase))
}

// DeleteDatabase runs on the leader.
func (l clusterLeader) DeleteDatabase(ctx context.Context, req *idnodev1.DeleteDatabaseRequest) (*idnodev1.DeleteDatabaseResponse, error) {
	if err := committed(ctx, l.s.core, fsm.ProposeDeleteDatabase, &raftv1.DeleteDatabase{Name: req.GetName(), Force: req.GetForce()},
		slog.LevelWarn, "database deleted; its counters stay as floors", "database", req.GetName(), "force", req.GetForce()); err != nil {
		return nil, err
	}
	return &idnodev1.DeleteDatabaseResponse{}, nil
}

// ListDatabases answers from the leader after a read barrier, so a database just created is
// listed.
func (s *clusterService) ListDatabases(ctx context.Context, req *idnodev1.ListDatabasesRequest) (*idnodev1.ListDatabasesResponse, error) {
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().ListDatabases, viaCluster(s.core, idnodev1.ClusterServiceClient.ListDatabases, forwardv1.LeaderClient.ListDatabases))
}

// ListDatabases runs on the leader.
func (l clusterLeader) ListDatabases(ctx context.Context, _ *idnodev1.ListDatabasesRequest) (*idnodev1.ListDatabasesResponse, error) {
	return afterBarrier(l.s.core, ctx, func(f *fsm.FSM) *idnodev1.ListDatabasesResponse {
		out := &idnodev1.ListDatabasesResponse{}
		for _, d := range f.Databases() {
			ds := &idnodev1.DatabaseStatus{Name: d.Name, Identities: int64(d.Identities), HiloTags: int64(d.HiLoTags),
				MaxIdentities: d.MaxIdentities, MaxCallsPerSecond: d.MaxCallsPerSecond, Claims: int64(d.Claims), MaxClaims: d.MaxClaims}
			if setting, ok := f.Opaque(d.Name); ok { // the key's fingerprint, never the key
				ds.OpaqueCollections, ds.OpaqueNumeric, ds.OpaqueKeyFingerprint = setting.Collections, setting.Numeric, setting.Fingerprint()
			}
			out.Databases = append(out.Databases, ds)
		}
		return out
	})
}
