package server

import (
	"context"
	"encoding/base64"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

const (
	// maxClaimIDs bounds one Claim, Release or lookup, so one log entry stays small.
	maxClaimIDs = 1000
	// maxOwnerBytes bounds a claim's owner, which every replica keeps with each of its IDs.
	maxOwnerBytes = 256
)

// validateClaimIDs checks that ids are 1..maxClaimIDs semantic IDs: a claim of "users|" or
// "users/" would name no document.
func (s *idService) validateClaimIDs(ids []string) error {
	if len(ids) == 0 || len(ids) > maxClaimIDs {
		return status.Errorf(codes.InvalidArgument, "a call names 1 to %d IDs, got %d", maxClaimIDs, len(ids))
	}
	for _, id := range ids {
		r, err := docid.Parse(id, s.cfg.Separator)
		if err != nil {
			return toStatus(err)
		}
		if r.Kind != docid.Semantic {
			return status.Errorf(codes.InvalidArgument, "%q is a %s request, not a semantic ID: only a document's own ID can be claimed", id, r.Kind)
		}
	}
	return nil
}

func validateOwner(owner string) error {
	if len(owner) > maxOwnerBytes {
		return status.Errorf(codes.InvalidArgument, "owner is %d bytes; at most %d", len(owner), maxOwnerBytes)
	}
	return nil
}

// Claim records semantic IDs as taken, through Raft, all or nothing.
func (s *idService) Claim(ctx context.Context, req *idnodev1.ClaimRequest) (*idnodev1.ClaimResponse, error) {
	if err := s.validateClaimIDs(req.GetIds()); err != nil {
		return nil, err
	}
	if err := validateOwner(req.GetOwner()); err != nil {
		return nil, err
	}
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().Claim, viaIDs(s.core, idnodev1.IdServiceClient.Claim, forwardv1.LeaderClient.Claim))
}

func (l idLeader) Claim(ctx context.Context, req *idnodev1.ClaimRequest) (*idnodev1.ClaimResponse, error) {
	if _, err := propose(ctx, l.s.core, fsm.ProposeClaim, &raftv1.Claim{
		Database: req.GetDatabase(), Ids: req.GetIds(), Owner: req.GetOwner(), RequestId: req.GetRequestId(), ProposedAtMs: l.s.cfg.Now().UnixMilli(),
	}); err != nil {
		return nil, err
	}
	return &idnodev1.ClaimResponse{}, nil
}

// claimSemantic is Generate's claim flag: the semantic ID of req, claimed for its owner.
// Generate parsed the ID and resolved the database already; only the owner is left to check.
func (s *idService) claimSemantic(ctx context.Context, db string, req *idnodev1.GenerateRequest) error {
	if err := validateOwner(req.GetOwner()); err != nil {
		return err
	}
	claim := &idnodev1.ClaimRequest{Database: db, Ids: []string{req.GetId()}, Owner: req.GetOwner(), RequestId: req.GetRequestId()}
	_, err := forward.Call(s.fwd, ctx, claim, forward.Unary, s.leader().Claim, viaIDs(s.core, idnodev1.IdServiceClient.Claim, forwardv1.LeaderClient.Claim))
	return err
}

// Release gives claimed IDs back, through Raft, all or nothing.
func (s *idService) Release(ctx context.Context, req *idnodev1.ReleaseRequest) (*idnodev1.ReleaseResponse, error) {
	if err := s.validateClaimIDs(req.GetIds()); err != nil {
		return nil, err
	}
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().Release, viaIDs(s.core, idnodev1.IdServiceClient.Release, forwardv1.LeaderClient.Release))
}

// Release runs on the leader. The request_id goes into the command only once the cluster is
// finalised at fsm.ReleaseRequestVersion: a member on an older build would ignore it and hold
// another request table than the rest.
func (l idLeader) Release(ctx context.Context, req *idnodev1.ReleaseRequest) (*idnodev1.ReleaseResponse, error) {
	cmd := &raftv1.Release{Database: req.GetDatabase(), Ids: req.GetIds(), Owner: req.GetOwner()}
	if req.GetRequestId() != "" && l.s.node.FSM().FinalisedVersion() >= fsm.ReleaseRequestVersion {
		cmd.RequestId, cmd.ProposedAtMs = req.GetRequestId(), l.s.cfg.Now().UnixMilli()
	}
	out, err := propose(ctx, l.s.core, fsm.ProposeRelease, cmd)
	if err != nil {
		return nil, err
	}
	return &idnodev1.ReleaseResponse{Released: out.Released}, nil
}

// ReleaseOwner gives back every ID the owner claimed in the database, through Raft (cluster
// version 2).
func (s *idService) ReleaseOwner(ctx context.Context, req *idnodev1.ReleaseOwnerRequest) (*idnodev1.ReleaseResponse, error) {
	if req.GetOwner() == "" {
		return nil, status.Error(codes.InvalidArgument, "owner is required: ReleaseOwner gives back the claims of one owner")
	}
	if err := validateOwner(req.GetOwner()); err != nil {
		return nil, err
	}
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().ReleaseOwner, viaIDs(s.core, idnodev1.IdServiceClient.ReleaseOwner, forwardv1.LeaderClient.ReleaseOwner))
}

// ReleaseOwner runs on the leader.
func (l idLeader) ReleaseOwner(ctx context.Context, req *idnodev1.ReleaseOwnerRequest) (*idnodev1.ReleaseResponse, error) {
	out, err := propose(ctx, l.s.core, fsm.ProposeReleaseOwner, &raftv1.ReleaseOwner{Database: req.GetDatabase(), Owner: req.GetOwner()})
	if err != nil {
		return nil, err
	}
	return &idnodev1.ReleaseResponse{Released: out.Released}, nil
}

// GetClaims reads the claims on the leader after a read barrier, like ListIdentities: a
// lookup right after a Claim sees it.
func (s *idService) GetClaims(ctx context.Context, req *idnodev1.GetClaimsRequest) (*idnodev1.GetClaimsResponse, error) {
	if len(req.GetIds()) > maxClaimIDs {
		return nil, status.Errorf(codes.InvalidArgument, "a lookup names at most %d IDs, got %d", maxClaimIDs, len(req.GetIds()))
	}
	if len(req.GetIds()) > 0 && (req.GetPrefix() != "" || req.GetPageToken() != "") {
		return nil, status.Error(codes.InvalidArgument, "name ids to look up, or a prefix to page through, not both")
	}
	return listed(s.core, ctx, req, func(size int32, db string) { req.PageSize, req.Database = size, db },
		s.leader().GetClaims, viaIDs(s.core, idnodev1.IdServiceClient.GetClaims, forwardv1.LeaderClient.GetClaims))
}

// GetClaims runs on the leader.
func (l idLeader) GetClaims(ctx context.Context, req *idnodev1.GetClaimsRequest) (*idnodev1.GetClaimsResponse, error) {
	if len(req.GetIds()) > 0 {
		return l.lookupClaims(ctx, req)
	}
	claims, next, err := leaderPage(l.s.core, ctx, req,
		func(after string, n int) ([]fsm.Claim, bool, error) {
			return l.s.node.FSM().ListClaims(req.GetDatabase(), req.GetPrefix(), after, n)
		},
		claimOf, func(c fsm.Claim) string { return c.ID })
	if err != nil {
		return nil, err
	}
	return &idnodev1.GetClaimsResponse{Claims: claims, NextPageToken: next}, nil
}

// lookupClaims answers a lookup of named IDs on the leader. It names at most maxClaimIDs IDs,
// so its answer stays under 2.3 MB: not paged, but built in a listing slot all the same.
func (l idLeader) lookupClaims(ctx context.Context, req *idnodev1.GetClaimsRequest) (*idnodev1.GetClaimsResponse, error) {
	release, err := l.s.slotted(ctx, l.s.listings)
	if err != nil {
		return nil, err
	}
	defer release()
	found, err := l.s.node.FSM().Claims(req.GetDatabase(), req.GetIds())
	if err != nil {
		return nil, toStatus(err)
	}
	out := &idnodev1.GetClaimsResponse{Claims: make([]*idnodev1.Claim, len(found))}
	for i, c := range found {
		out.Claims[i] = claimOf(c)
	}
	return out, nil
}

func claimOf(c fsm.Claim) *idnodev1.Claim { return &idnodev1.Claim{Id: c.ID, Owner: c.Owner} }

// pageOf reads a listing request's page: its size (the default for 0, at most maxPageSize)
// and the key to start after, from the page_token an earlier answer carried (pageToken).
func pageOf(asked int32, token string) (size int, after string, err error) {
	switch {
	case asked < 0:
		return 0, "", status.Errorf(codes.InvalidArgument, "page_size must not be negative: %d", asked)
	case asked == 0:
		size = defaultPageSize
	default:
		size = min(int(asked), maxPageSize)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", status.Errorf(codes.InvalidArgument, "page_token is not one this server issued: %q", token)
	}
	return size, string(raw), nil
}

// pageToken is the page_token of the page after the one ending at key.
func pageToken(key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(key))
}
