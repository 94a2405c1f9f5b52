package server

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/forward"
	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// NextHiLo reserves a range. This node decides its size from the caller's history and its own
// clock, and carries the size in the command, so the FSM stays clock-free.
func (s *Server) NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	if err := docid.ValidateName("hilo tag", req.GetTag()); err != nil {
		return nil, toStatus(err)
	}
	if req.GetLastBatchSize() < 0 || req.GetLastRangeAt() < 0 || req.GetLastMax() < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "last_batch_size, last_range_at and last_max must not be negative (got %d, %d, %d)",
			req.GetLastBatchSize(), req.GetLastRangeAt(), req.GetLastMax())
	}
	if req.GetSeparator() != "" {
		if _, err := docid.ParseSeparator(req.GetSeparator()); err != nil {
			return nil, toStatus(err)
		}
	}
	db, err := databaseOf(ctx, req.GetDatabase())
	if err != nil {
		return nil, err
	}
	req.Database = db
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.nextHiLoLocal, viaIDs(idnodev1.IdServiceClient.NextHiLo))
}

// nextHiLoLocal reserves on the leader; server_tag is the leader's, the node that granted it.
func (s *Server) nextHiLoLocal(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	sep := s.cfg.Separator
	if req.GetSeparator() != "" {
		sep, _ = docid.ParseSeparator(req.GetSeparator())
	}
	now := s.cfg.Now()
	var lastAt time.Time
	if req.GetLastRangeAt() > 0 {
		lastAt = time.UnixMilli(req.GetLastRangeAt())
	}
	capacity := s.cfg.HiLo.Capacity(req.GetLastBatchSize(), lastAt, now)
	resp, err := s.apply(ctx, fsm.HiLoReserveCommand, &raftv1.HiLoReserve{
		Database: req.GetDatabase(), Tag: req.GetTag(), Capacity: capacity, LastMax: req.GetLastMax(),
		RequestId: req.GetRequestId(), ProposedAtMs: now.UnixMilli(),
	})
	if err != nil {
		return nil, err
	}
	rng := resp.(fsm.HiLoRange)
	return &idnodev1.NextHiLoResponse{
		Prefix:      req.GetTag() + string(sep),
		Low:         rng.Low,
		High:        rng.High,
		LastSize:    rng.High - rng.Low + 1,
		ServerTag:   s.cfg.Tag,
		LastRangeAt: now.UnixMilli(),
	}, nil
}

func (s *Server) ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (*idnodev1.ReturnHiLoResponse, error) {
	if err := docid.ValidateName("hilo tag", req.GetTag()); err != nil {
		return nil, toStatus(err)
	}
	if req.GetEnd() < 0 || req.GetLast() < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "end and last must not be negative (got %d, %d)", req.GetEnd(), req.GetLast())
	}
	db, err := databaseOf(ctx, req.GetDatabase())
	if err != nil {
		return nil, err
	}
	req.Database = db
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.returnHiLoLocal, viaIDs(idnodev1.IdServiceClient.ReturnHiLo))
}

func (s *Server) returnHiLoLocal(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (*idnodev1.ReturnHiLoResponse, error) {
	if _, err := s.apply(ctx, fsm.HiLoReturnCommand, &raftv1.HiLoReturn{Database: req.GetDatabase(), Tag: req.GetTag(), End: req.GetEnd(), Last: req.GetLast()}); err != nil {
		return nil, err
	}
	return &idnodev1.ReturnHiLoResponse{}, nil
}
