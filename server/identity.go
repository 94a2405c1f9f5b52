package server

import (
	"context"
	"fmt"
	"math"
	"slices"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

const (
	defaultPageSize = 1000
	maxPageSize     = 10_000
)

func (s *idService) NextIdentity(ctx context.Context, req *idnodev1.NextIdentityRequest) (*idnodev1.NextIdentityResponse, error) {
	if err := docid.ValidateName("identity name", req.GetName()); err != nil {
		return nil, toStatus(err)
	}
	count := countOrOne(req.GetCount())
	if err := docid.ValidateCount(docid.Identity, count, s.cfg.MaxCount); err != nil {
		return nil, toStatus(err)
	}
	db, err := databaseOf(ctx, req.GetDatabase())
	if err != nil {
		return nil, err
	}
	if err := s.forms().refuseIdentity(db, req.GetName()); err != nil {
		return nil, err
	}
	inc := &raftv1.IdentityIncrement{Database: db, Name: req.GetName(), Count: count, RequestId: req.GetRequestId()}
	if err := s.checkIdentityRoom(inc); err != nil {
		return nil, err
	}
	rng, err := s.nextIdentity(ctx, inc)
	if err != nil {
		return nil, err
	}
	// The collection may have turned opaque before the increment was applied: its answer says
	// so (fsm.IdentityRange.Forms). The values reserved are given to no one, which leaves a
	// gap, never a duplicate.
	if rng.Forms != nil {
		return nil, identityRefusal(db, req.GetName())
	}
	return &idnodev1.NextIdentityResponse{First: rng.First, Last: rng.Last, Skipped: rng.Skipped}, nil
}

// checkIdentityRoom refuses, before Raft, an increment whose count the counter cannot give
// without passing the largest int64, as this node's copy of the FSM sees the counter. The FSM
// checks again at apply time with the committed value (a follower's copy may lag, and claims
// skipped may use up more room), so this only spares the log an entry it would refuse. A
// retry (request_id) is left to the FSM: its answer may be remembered even when the counter
// has no room left.
func (s *idService) checkIdentityRoom(inc *raftv1.IdentityIncrement) error {
	if inc.GetRequestId() != "" {
		return nil
	}
	current := s.node.FSM().Identity(inc.GetDatabase(), inc.GetName())
	if inc.GetCount() > math.MaxInt64-current {
		return reason.Error(codes.OutOfRange, reason.CounterOverflow, fmt.Sprintf(
			"count %d: identity %q is at %d, and %d more would pass %d (the largest int64): ask for a smaller count, or use another name",
			inc.GetCount(), inc.GetName(), current, inc.GetCount(), int64(math.MaxInt64)))
	}
	return nil
}

func (s *idService) SeedIdentity(ctx context.Context, req *idnodev1.SeedIdentityRequest) (*idnodev1.SeedIdentityResponse, error) {
	if err := docid.ValidateName("identity name", req.GetName()); err != nil {
		return nil, toStatus(err)
	}
	if err := docid.ValidateSeed(req.GetValue()); err != nil {
		return nil, toStatus(err)
	}
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().SeedIdentity, viaIDs(s.core, idnodev1.IdServiceClient.SeedIdentity, forwardv1.LeaderClient.SeedIdentity))
}

func (l idLeader) SeedIdentity(ctx context.Context, req *idnodev1.SeedIdentityRequest) (*idnodev1.SeedIdentityResponse, error) {
	resp, err := propose(ctx, l.s.core, fsm.ProposeSeedIdentity, &raftv1.SeedIdentity{Database: req.GetDatabase(), Name: req.GetName(), Value: req.GetValue(), Force: req.GetForce()})
	if err != nil {
		return nil, err
	}
	return &idnodev1.SeedIdentityResponse{Value: resp}, nil
}

// ListIdentities reads the FSM after confirming leadership with a majority, so a partitioned
// old leader never answers from stale state. The leader marks the opaque collections; their
// values are cleared here, where the call arrived and its caller's role is known, unless the
// caller has the admin role (opaqueForms.readsValues).
func (s *idService) ListIdentities(ctx context.Context, req *idnodev1.ListIdentitiesRequest) (*idnodev1.ListIdentitiesResponse, error) {
	resp, err := listed(s.core, ctx, req, func(size int32, db string) { req.PageSize, req.Database = size, db },
		s.leader().ListIdentities, viaIDs(s.core, idnodev1.IdServiceClient.ListIdentities, forwardv1.LeaderClient.ListIdentities))
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(resp.GetIdentities(), (*idnodev1.Identity).GetOpaque) && !s.forms().readsValues(ctx, req.GetDatabase()) {
		for _, id := range resp.GetIdentities() {
			if id.GetOpaque() {
				id.Value = 0
			}
		}
	}
	return resp, nil
}

// ListIdentities runs on the leader.
func (l idLeader) ListIdentities(ctx context.Context, req *idnodev1.ListIdentitiesRequest) (*idnodev1.ListIdentitiesResponse, error) {
	var setting fsm.OpaqueSetting
	var opaque bool
	page, next, err := leaderPage(l.s.core, ctx, req,
		func(after string, n int) ([]fsm.Identity, bool, error) {
			// Read after leaderPage's barrier, with the page: current for it.
			setting, opaque = l.s.node.FSM().Opaque(req.GetDatabase())
			return l.s.node.FSM().Identities(req.GetDatabase(), req.GetPrefix(), after, n)
		},
		func(id fsm.Identity) *idnodev1.Identity {
			return &idnodev1.Identity{Name: id.Name, Value: id.Value, Opaque: opaque && setting.Has(id.Name)}
		},
		func(id fsm.Identity) string { return id.Name })
	if err != nil {
		return nil, err
	}
	return &idnodev1.ListIdentitiesResponse{Identities: page, NextPageToken: next}, nil
}
