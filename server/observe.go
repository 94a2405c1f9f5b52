package server

import (
	"context"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/forward"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Strategy names, as Observer.IDsIssued is told them: docid.Kind's.
var (
	StrategySemantic   = docid.Semantic.String()
	StrategyGUID       = docid.GUID.String()
	StrategyServerSide = docid.ServerSide.String()
	StrategyIdentity   = docid.Identity.String()
	StrategyHiLo       = docid.HiLo.String()
	// StrategySeries and StrategyNumeric count fiscal series numbers (series.go) and numeric
	// IDs (numeric.go): no docid.Kind, since no request string asks for either.
	StrategySeries  = "series"
	StrategyNumeric = "numeric"
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
	// HiLoPoolGrant counts a HiLo range of n numbers granted from this node's pool, without a
	// Raft round.
	HiLoPoolGrant(database, tag string, n int64)
	// HiLoPoolRefill counts n numbers the cluster reserved to this node's pool.
	HiLoPoolRefill(database, tag string, n int64)
}

// observe is a unary interceptor reporting answers to the Observer. It classifies a Generate
// request by its last character only: a request that succeeded was valid. The servers run it
// as a step of unary or internalUnary (intercept.go); on its own it is the step's unit under
// test.
func (s *Server) observe(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	s.report(ctx, s.callOf(ctx, info.FullMethod, req), resp, err)
	return resp, err
}

// report tells the Observer what call c was answered.
func (s *Server) report(ctx context.Context, c *call, resp any, err error) {
	obs := s.cfg.Observer
	if obs == nil || forward.Arrived(ctx) {
		return
	}
	if err != nil {
		// An unknown outcome is a quorum lost while the call was under way.
		if r := reason.Of(err); r == reason.NoQuorum || r == reason.OutcomeUnknown {
			obs.NoQuorum()
		}
		return
	}
	db := c.db // the call succeeded, so the name was valid
	switch r := resp.(type) {
	case *idnodev1.GenerateResponse:
		strategy := c.kind.String()
		if c.numeric {
			strategy = StrategyNumeric
		}
		obs.IDsIssued(strategy, db, int64(len(r.GetIds())))
	case *idnodev1.NextIdentityResponse:
		obs.IDsIssued(StrategyIdentity, db, docid.IdentityBlock{First: r.GetFirst(), Last: r.GetLast(), Skipped: r.GetSkipped()}.Len())
	case *idnodev1.NextHiLoResponse:
		n := r.GetHigh() - r.GetLow() + 1
		obs.IDsIssued(StrategyHiLo, db, n)
		obs.HiLoRange(n)
	case *idnodev1.IssueResponse:
		obs.IDsIssued(StrategySeries, db, 1)
	}
}
