package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/internal/forward"
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
	// ClockOffset is this node's wall clock minus the leader's, at each measurement (clock.go).
	ClockOffset(offset time.Duration)
	// NumericClockBehind counts a numeric ID of a database ("" is the default) this node could
	// not mint because its clock was behind the last one's time by more than the minter may
	// borrow (flake.ErrClockBehind): the caller waits and asks again.
	NumericClockBehind(database string)
}

// observer is the Observer, or one that is told nothing when the node has no metrics.
func (s *core) observer() Observer {
	if s.cfg.Observer == nil {
		return noObserver{}
	}
	return s.cfg.Observer
}

// observe is a unary interceptor reporting answers to the Observer. It classifies a Generate
// request by its last character only: a request that succeeded was valid. The servers run it
// as a step of unary or internalUnary (intercept.go); on its own it is the step's unit under
// test.
func (s *interceptors) observe(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	s.report(ctx, s.callOf(ctx, info.FullMethod, req), resp, err)
	return resp, err
}

// report tells the Observer, and the tally Status reads, what call c was answered.
func (s *interceptors) report(ctx context.Context, c *call, resp any, err error) {
	if forward.Arrived(ctx) {
		return
	}
	obs := s.observer()
	if err != nil {
		// An unknown outcome is a quorum lost while the call was under way.
		if r := reason.Of(err); r == reason.NoQuorum || r == reason.OutcomeUnknown {
			obs.NoQuorum()
		}
		return
	}
	issued := func(strategy string, n int64) {
		s.issued.add(strategy, n)
		obs.IDsIssued(strategy, c.db, n) // the call succeeded, so the database was valid
	}
	switch r := resp.(type) {
	case *idnodev1.GenerateResponse:
		strategy := c.kind.String()
		if c.numeric {
			strategy = StrategyNumeric
		}
		issued(strategy, int64(len(r.GetIds())))
	case *idnodev1.NextIdentityResponse:
		issued(StrategyIdentity, docid.IdentityBlock{First: r.GetFirst(), Last: r.GetLast(), Skipped: r.GetSkipped()}.Len())
	case *idnodev1.NextHiLoResponse:
		n := r.GetHigh() - r.GetLow() + 1
		issued(StrategyHiLo, n)
		obs.HiLoRange(n)
	case *idnodev1.IssueResponse:
		issued(StrategySeries, 1)
	}
}

// noObserver stands in for a node without metrics.
type noObserver struct{}

func (noObserver) IDsIssued(string, string, int64)      {}
func (noObserver) HiLoRange(int64)                      {}
func (noObserver) NoQuorum()                            {}
func (noObserver) HiLoPoolGrant(string, string, int64)  {}
func (noObserver) HiLoPoolRefill(string, string, int64) {}
func (noObserver) ClockOffset(time.Duration)            {}
func (noObserver) NumericClockBehind(string)            {}

// issuedTally counts the IDs this node handed out by strategy, metrics on or off, for Status
// (the console's rates). The strategies are a fixed few, so the map is made once and read
// without a lock.
type issuedTally struct {
	once sync.Once
	by   map[string]*atomic.Uint64
}

func (t *issuedTally) counters() map[string]*atomic.Uint64 {
	t.once.Do(func() {
		t.by = map[string]*atomic.Uint64{}
		for _, s := range []string{StrategySemantic, StrategyGUID, StrategyServerSide, StrategyIdentity, StrategyHiLo, StrategySeries, StrategyNumeric} {
			t.by[s] = new(atomic.Uint64)
		}
	})
	return t.by
}

func (t *issuedTally) add(strategy string, n int64) {
	if c, ok := t.counters()[strategy]; ok && n > 0 {
		c.Add(uint64(n))
	}
}

// snapshot is every strategy's count now.
func (t *issuedTally) snapshot() map[string]uint64 {
	out := map[string]uint64{}
	for s, c := range t.counters() {
		out[s] = c.Load()
	}
	return out
}
