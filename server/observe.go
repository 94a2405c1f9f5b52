package server

import (
	"context"
	"unicode/utf8"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/forward"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Strategy names, as Observer.IDsIssued is told them.
const (
	StrategySemantic   = "semantic"
	StrategyGUID       = "guid"
	StrategyServerSide = "server-side"
	StrategyIdentity   = "identity"
	StrategyHiLo       = "hilo"
)

// Observer is told what this node hands out and refuses (metrics.Metrics is one). Calls that
// another node forwarded here are not reported: the node the caller asked reports them.
type Observer interface {
	// IDsIssued counts n IDs of a strategy given to a caller (for HiLo: the range's numbers)
	// in a database ("" is the default).
	IDsIssued(strategy, database string, n int64)
	// HiLoRange observes the size of a granted range.
	HiLoRange(size int64)
	// NoQuorum counts a call refused because the node could not reach a majority (reasons
	// NO_QUORUM and OUTCOME_UNKNOWN).
	NoQuorum()
}

// observe is a unary interceptor reporting answers to the Observer. It classifies a Generate
// request by its last character only: a request that succeeded was valid.
func (s *Server) observe(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	obs := s.cfg.Observer
	if obs == nil || forward.Arrived(ctx) {
		return resp, err
	}
	if err != nil {
		// An unknown outcome is a quorum lost while the call was under way.
		if r := reason.Of(err); r == reason.NoQuorum || r == reason.OutcomeUnknown {
			obs.NoQuorum()
		}
		return resp, err
	}
	// The call succeeded, so its database name was valid (field, else metadata).
	db := func(field string) string { name, _ := databaseOf(ctx, field); return name }
	switch r := resp.(type) {
	case *idnodev1.GenerateResponse:
		g := req.(*idnodev1.GenerateRequest)
		obs.IDsIssued(s.strategyOf(g.GetId()), db(g.GetDatabase()), int64(len(r.GetIds())))
	case *idnodev1.NextIdentityResponse:
		obs.IDsIssued(StrategyIdentity, db(req.(*idnodev1.NextIdentityRequest).GetDatabase()), r.GetLast()-r.GetFirst()+1)
	case *idnodev1.NextHiLoResponse:
		n := r.GetHigh() - r.GetLow() + 1
		obs.IDsIssued(StrategyHiLo, db(req.(*idnodev1.NextHiLoRequest).GetDatabase()), n)
		obs.HiLoRange(n)
	}
	return resp, err
}

func (s *Server) strategyOf(id string) string {
	if id == "" {
		return StrategyGUID
	}
	switch last, _ := utf8.DecodeLastRuneInString(id); last {
	case '|':
		return StrategyIdentity
	case s.cfg.Separator:
		return StrategyServerSide
	}
	return StrategySemantic
}
