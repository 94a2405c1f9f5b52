package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"math"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/hilogrant"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// NextHiLo reserves a range. This node decides its size from the caller's history and its own
// clock, and carries the size in the command, so the FSM stays clock-free.
func (s *idService) NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	requested, err := requestedSeparator(ctx, req)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.checkHiLoTag(req.GetTag(), requested); err != nil {
		return nil, err
	}
	if req.GetLastBatchSize() < 0 || req.GetLastRangeAt() < 0 || req.GetLastMax() < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "last_batch_size, last_range_at and last_max must not be negative (got %d, %d, %d)",
			req.GetLastBatchSize(), req.GetLastRangeAt(), req.GetLastMax())
	}
	if req.GetLastBatchSize() > s.cfg.HiLo.Max {
		return nil, reason.Error(codes.OutOfRange, "", fmt.Sprintf("last_batch_size %d is larger than any range this cluster grants (at most %d): "+
			"send the size of the range you were granted (NextHiLoResponse.last_size)", req.GetLastBatchSize(), s.cfg.HiLo.Max))
	}
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	// This node's Max may lag the leader's, never lead it: what passes here may still be
	// refused by the FSM, never the other way round (but for a seed not applied here yet).
	if err := fsm.CheckLastMax(req.GetLastMax(), s.node.FSM().HiLoMax(req.GetDatabase(), req.GetTag())); err != nil {
		return nil, toStatus(err)
	}
	if s.cfg.Pools != nil {
		if resp, ok, err := s.pools.grant(ctx, req); ok || err != nil {
			return resp, err
		}
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().NextHiLo, viaIDs(s.core, idnodev1.IdServiceClient.NextHiLo, forwardv1.LeaderClient.NextHiLo))
}

// lastRangeAt is when the caller got its previous range (zero: unknown).
func lastRangeAt(req *idnodev1.NextHiLoRequest) time.Time {
	if req.GetLastRangeAt() > 0 {
		return time.UnixMilli(req.GetLastRangeAt())
	}
	return time.Time{}
}

// grantIDFor is the identity of the range granted to req, which a return must present: its
// request_id, which only the caller and its retries know, or else a random one.
func grantIDFor(req *idnodev1.NextHiLoRequest) string {
	if id := req.GetRequestId(); id != "" {
		return id
	}
	return "grant-" + rand.Text()
}

// hiloResponse is the answer granting low..high as grantID, from node s (the tag the client
// prints).
func hiloResponse(ctx context.Context, s *core, req *idnodev1.NextHiLoRequest, low, high int64, grantID string, now time.Time) *idnodev1.NextHiLoResponse {
	sep, _ := requestedSeparator(ctx, req) // NextHiLo refused a bad one
	if sep == 0 {
		sep = s.cfg.Separator
	}
	return &idnodev1.NextHiLoResponse{
		Prefix:      req.GetTag() + string(sep),
		Low:         low,
		High:        high,
		LastSize:    high - low + 1,
		ServerTag:   s.cfg.Tag,
		LastRangeAt: now.UnixMilli(),
		GrantId:     grantID,
	}
}

// nextHiLoLocal reserves on the leader; server_tag is the leader's, the node that granted it.
func (l idLeader) NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	now := l.s.cfg.Now()
	capacity := l.s.cfg.HiLo.Capacity(req.GetLastBatchSize(), lastRangeAt(req), now)
	cmd := &raftv1.HiLoReserve{
		Database: req.GetDatabase(), Tag: req.GetTag(), Capacity: capacity, LastMax: req.GetLastMax(),
		RequestId: req.GetRequestId(), ProposedAtMs: now.UnixMilli(),
	}
	if cmd.RequestId == "" {
		cmd.GrantId = grantIDFor(req)
	}
	rng, err := propose(ctx, l.s.core, fsm.ProposeHiLoGrant, cmd)
	if err != nil {
		return nil, err
	}
	return hiloResponse(ctx, l.s.core, req, rng.Low, rng.High, rng.GrantID, now), nil
}

// ReturnHiLo gives back the unused tail of a range, by the rule of package hilogrant: only with
// the range's grant_id, once, while it is the newest of its tag. A return that cannot be right
// is refused before anything goes to the pool or to Raft.
func (s *idService) ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (*idnodev1.ReturnHiLoResponse, error) {
	if err := s.checkHiLoTag(req.GetTag(), 0); err != nil {
		return nil, err
	}
	if err := hilogrant.CheckReturn(req.GetGrantId(), req.GetEnd(), req.GetLast()); err != nil {
		return nil, toStatus(err)
	}
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	resp, err := s.returnHiLo(ctx, req)
	if err == nil && !resp.GetReturned() {
		s.hiloGaps.add(req.GetDatabase(), req.GetEnd()-req.GetLast())
	}
	return resp, err
}

// returnHiLo gives the range back to this node's pool, or else through the leader.
func (s *idService) returnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (*idnodev1.ReturnHiLoResponse, error) {
	if s.cfg.Pools != nil {
		// A range this node's pool granted goes back to the pool; one from another node's pool
		// finds no match anywhere and is a gap.
		if ok, err := s.pools.giveBack(req); ok || err != nil {
			return &idnodev1.ReturnHiLoResponse{Returned: ok}, err
		}
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().ReturnHiLo, viaIDs(s.core, idnodev1.IdServiceClient.ReturnHiLo, forwardv1.LeaderClient.ReturnHiLo))
}

func (l idLeader) ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (*idnodev1.ReturnHiLoResponse, error) {
	out, err := propose(ctx, l.s.core, fsm.ProposeHiLoReturnGrant, &raftv1.HiLoReturn{
		Database: req.GetDatabase(), Tag: req.GetTag(), End: req.GetEnd(), Last: req.GetLast(), GrantId: req.GetGrantId(),
		RequestId: req.GetRequestId(),
	})
	if err != nil {
		return nil, err
	}
	return &idnodev1.ReturnHiLoResponse{Returned: bool(out)}, nil
}

// SeedHiLo raises a tag's Max through Raft (a migration: the next range starts above the IDs
// the old store printed); it never lowers it.
func (s *idService) SeedHiLo(ctx context.Context, req *idnodev1.SeedHiLoRequest) (*idnodev1.SeedHiLoResponse, error) {
	if err := s.checkHiLoTag(req.GetTag(), 0); err != nil {
		return nil, err
	}
	if err := docid.ValidateSeed(req.GetMax()); err != nil {
		return nil, toStatus(err)
	}
	// Above this the tag could not grant one more range of the largest size: a seed must not
	// leave it answering OUT_OF_RANGE for ever.
	if top := math.MaxInt64 - s.cfg.HiLo.Max; req.GetMax() > top {
		return nil, reason.Error(codes.OutOfRange, "", fmt.Sprintf("max %d would leave the tag no room for a range of %d: seed at most %d",
			req.GetMax(), s.cfg.HiLo.Max, top))
	}
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().SeedHiLo, viaIDs(s.core, idnodev1.IdServiceClient.SeedHiLo, forwardv1.LeaderClient.SeedHiLo))
}

func (l idLeader) SeedHiLo(ctx context.Context, req *idnodev1.SeedHiLoRequest) (*idnodev1.SeedHiLoResponse, error) {
	resp, err := propose(ctx, l.s.core, fsm.ProposeSeedHiLo, &raftv1.SeedHiLo{Database: req.GetDatabase(), Tag: req.GetTag(), Max: req.GetMax()})
	if err != nil {
		return nil, err
	}
	return &idnodev1.SeedHiLoResponse{Max: resp}, nil
}

// checkHiLoTag refuses a tag whose IDs would read wrong, before anything goes to Raft: one
// ending with the cluster's separator, or with the separator the request asks for (requested,
// 0 for none), such as "orders/", which would print "orders//1-A". Refusing the cluster's in
// every case keeps ReturnHiLo and SeedHiLo accepting every tag NextHiLo granted a range for.
func (s *idService) checkHiLoTag(tag string, requested rune) error {
	if err := docid.ValidateHiLoTag(tag, s.cfg.Separator); err != nil {
		return toStatus(err)
	}
	if requested != 0 && requested != s.cfg.Separator {
		if err := docid.ValidateHiLoTag(tag, requested); err != nil {
			return toStatus(err)
		}
	}
	return nil
}
