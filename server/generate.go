package server

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Generate resolves a request string by its last character (docid.Parse): a semantic ID,
// a GUID, a server-side ID, an identity or a HiLo tag.
func (s *idService) Generate(ctx context.Context, req *idnodev1.GenerateRequest) (*idnodev1.GenerateResponse, error) {
	if req.GetNumeric() {
		return s.generateNumeric(ctx, req)
	}
	r, err := docid.Parse(req.GetId(), s.cfg.Separator)
	if err != nil {
		return nil, toStatus(err)
	}
	count := countOrOne(req.GetCount())
	if err := docid.ValidateCount(r.Kind, count, s.cfg.MaxCount); err != nil {
		return nil, toStatus(err)
	}
	if err := docid.ValidateAnswerSize(r.Kind, r.Prefix, s.cfg.Separator, count); err != nil {
		return nil, toStatus(err)
	}
	db, err := databaseOf(ctx, req.GetDatabase())
	if err != nil {
		return nil, err
	}
	if req.GetClaim() && r.Kind != docid.Semantic {
		return nil, status.Errorf(codes.InvalidArgument, "claim is for semantic IDs; %q is a %s request, whose IDs nobody else gets anyway", req.GetId(), r.Kind)
	}
	if r.Kind != docid.Identity && !req.GetClaim() {
		if err := s.localDatabase(ctx, db); err != nil {
			return nil, err
		}
	}
	var ids []string
	switch r.Kind {
	case docid.Semantic:
		if req.GetClaim() {
			err = s.claimSemantic(ctx, db, req)
		}
		ids = []string{r.Raw}
	case docid.GUID:
		ids, err = guids(count, req.GetGuidVersion())
	case docid.ServerSide:
		ids, err = s.serverSideIDs(ctx, r.Prefix, count)
	case docid.Identity:
		inc := &raftv1.IdentityIncrement{Database: db, Name: r.Prefix, Count: count, RequestId: req.GetRequestId()}
		if err = s.checkIdentityRoom(inc); err == nil {
			ids, err = s.identityIDs(ctx, inc)
		}
	}
	if err != nil {
		return nil, err
	}
	return &idnodev1.GenerateResponse{Ids: ids}, nil
}

// generateNumeric mints numeric IDs under this node's worker lease of the database (numeric.go).
func (s *idService) generateNumeric(ctx context.Context, req *idnodev1.GenerateRequest) (*idnodev1.GenerateResponse, error) {
	switch count := countOrOne(req.GetCount()); {
	case req.GetId() != "" || req.GetClaim() || req.GetRequestId() != "" || req.GetGuidVersion() != 0:
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidInput, "a numeric request takes only count and database: leave id, claim, request_id and guid_version unset")
	case count < 1 || count > s.cfg.MaxCount:
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidInput, fmt.Sprintf("count must be 1..%d, got %d", s.cfg.MaxCount, count))
	default:
		db, err := databaseOf(ctx, req.GetDatabase())
		if err != nil {
			return nil, err
		}
		if err := s.localDatabase(ctx, db); err != nil {
			return nil, err
		}
		ids, err := s.numericIDs(ctx, db, count)
		if err != nil {
			return nil, err
		}
		return &idnodev1.GenerateResponse{Ids: ids}, nil
	}
}

func countOrOne(count int64) int64 {
	if count == 0 {
		return 1
	}
	return count
}

// guids returns count UUIDs: v7 (time-ordered, index-friendly) unless v4 is asked for.
func guids(count int64, version idnodev1.GuidVersion) ([]string, error) {
	gen := uuid.NewV7
	if version == idnodev1.GuidVersion_GUID_VERSION_V4 {
		gen = uuid.NewRandom
	}
	ids := make([]string, count)
	for i := range ids {
		u, err := gen()
		if err != nil {
			return nil, toStatus(err)
		}
		ids[i] = u.String()
	}
	return ids, nil
}

// serverSideIDs numbers count IDs from this node's etag counter: no Raft, no quorum. Only a
// node the cluster has accepted under its tag may: see datadir.NodeState. At start they wait (bounded)
// for the cluster's record of this node's etags (etagrecord.go).
func (s *idService) serverSideIDs(ctx context.Context, prefix string, count int64) ([]string, error) {
	if !s.registered.Load() {
		return nil, reason.Error(codes.Unavailable, reason.NotRegistered,
			fmt.Sprintf("node %s is not registered in the cluster yet, so it cannot issue server-side IDs: %s", s.cfg.Tag, s.registrationProblem()))
	}
	if err := s.etagRecord.wait(ctx); err != nil {
		return nil, toStatus(err)
	}
	first, err := s.etags.Next(uint64(count))
	if err != nil {
		return nil, toStatus(err)
	}
	ids := make([]string, count)
	for i := range ids {
		ids[i] = docid.ServerSideID(prefix, first+uint64(i), s.cfg.Tag)
	}
	return ids, nil
}

func (s *idService) identityIDs(ctx context.Context, inc *raftv1.IdentityIncrement) ([]string, error) {
	rng, err := s.nextIdentity(ctx, inc)
	if err != nil {
		return nil, err
	}
	write := s.forms().identityWriter(inc, rng.Forms)
	ids := make([]string, 0, inc.GetCount())
	for v := range rng.All() {
		id, err := write(v)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}
