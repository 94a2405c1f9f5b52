package server

import (
	"maps"
	"math"
	"sync"
	"time"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Headroom: how far this node is from each limit that would make it refuse, so that an
// operator hears of a refusal days before it comes (docs/metrics.md, "Headroom"). Status and
// the headroom gauges read the same answer, computed when asked: the counters' maxima are kept
// by the FSM as they change, and the rest is a handful of numbers per database.

// numericLayouts are the numeric layouts whose time bits the node can judge, by name: the ones
// idnode names. A client's own layout is its own to watch.
var numericLayouts = map[string]flake.Layout{"default": flake.DefaultLayout(), "js-safe": flake.JSSafeLayout()}

// The thresholds past which a headroom figure needs an operator. The alert rules in
// deploy/prometheus/alerts.yml use the same numbers (deploy's test fails when they differ),
// and Status carries them (Headroom.thresholds) so that the web console marks what an alert
// would fire on without a copy of its own.
const (
	// WarnNumericYearsLeft: a numeric layout with fewer years of time bits left.
	WarnNumericYearsLeft = 5.0
	// WarnWorkersAvailableRatio: a database with a smaller fraction of its worker IDs free
	// or never used.
	WarnWorkersAvailableRatio = 0.10
	// WarnCounterHeadroomRatio: a database's largest counter with a smaller fraction of the
	// int64 range left.
	WarnCounterHeadroomRatio = 0.01
	// WarnDiskFullInDays: a data dir whose disk is full sooner, at the last hour's growth.
	WarnDiskFullInDays = 3.0
	// WarnCertificateDaysLeft: a certificate that expires sooner.
	WarnCertificateDaysLeft = 14.0
)

// HeadroomThresholds are the thresholds Status carries: the ones above, and a clock offset
// past DefaultClockOffsetWarn (the alert's; a node's --clock-offset-warn only moves its log's
// warning).
func HeadroomThresholds() *idnodev1.HeadroomThresholds {
	return &idnodev1.HeadroomThresholds{
		NumericYearsLeft:      WarnNumericYearsLeft,
		WorkersAvailableRatio: WarnWorkersAvailableRatio,
		CounterHeadroomRatio:  WarnCounterHeadroomRatio,
		DiskFullInDays:        WarnDiskFullInDays,
		CertificateDaysLeft:   WarnCertificateDaysLeft,
		ClockOffsetSeconds:    DefaultClockOffsetWarn.Seconds(),
	}
}

// Headroom is this node's headroom now: its databases' worker IDs and counters, the time left
// in the numeric layouts, the data dir's disk and the TLS certificates.
func (s *Server) Headroom() *idnodev1.Headroom { return s.ids.headroom() }

// headroom is Headroom: the ID service holds the numeric minters and the HiLo gaps.
func (s *idService) headroom() *idnodev1.Headroom {
	c := s.core
	now := c.cfg.Now()
	out := &idnodev1.Headroom{NumericYearsLeft: make(map[string]float64, len(numericLayouts)), DiskFullInDays: math.Inf(1),
		Thresholds: HeadroomThresholds()}
	for name, l := range numericLayouts {
		end := l.Epoch.Add(time.Duration(l.MaxTick()+1) * l.Unit)
		out.NumericYearsLeft[name] = end.Sub(now).Hours() / hoursPerYear
	}
	saturations, gaps := s.numeric.saturations(), s.hiloGaps.byDatabase()
	for _, h := range c.node.FSM().Headroom(now.UnixMilli()) {
		out.Databases = append(out.Databases, &idnodev1.DatabaseHeadroom{
			Database: h.Database, WorkerBits: h.WorkerBits,
			WorkersLeased: h.WorkersLeased, WorkersFree: h.WorkersFree, WorkersNeverUsed: h.WorkersNeverUsed,
			SequenceSaturations: saturations[h.Database],
			LargestIdentity:     h.LargestIdentity, LargestIdentityValue: h.LargestIdentityValue, IdentityValuesLeft: h.IdentityValuesLeft,
			LargestHiloTag: h.LargestHiLo, LargestHiloMax: h.LargestHiLoMax, HiloValuesLeft: h.HiLoValuesLeft,
			HiloAbandoned: gaps[h.Database],
		})
	}
	if c.cfg.Disk != nil {
		out.DiskFreeBytes, out.DiskFullInDays = c.cfg.Disk()
	}
	if c.cfg.Certificates != nil {
		out.Certificates = c.cfg.Certificates()
	}
	return out
}

// hoursPerYear is a Julian year's: the time bits run out on a date, and a year of 365.25 days
// is what "years left" means across leap years.
const hoursPerYear = 365.25 * 24

// hiloGaps counts, by database, the HiLo numbers callers gave back that could not be taken back
// (ReturnHiLo answered returned false: the range was no longer its tag's newest, or another
// node's pool granted it): gaps, which HiLo allows, and which an operator wants to see grow
// slowly. A range a client drops without returning it is not seen here. The numbers are the
// caller's word; the sum stops at the largest uint64 rather than wrap.
type hiloGaps struct {
	mu sync.Mutex
	n  map[string]uint64 // by fsm.DatabaseName: the databases that exist
}

func (g *hiloGaps) add(database string, numbers int64) {
	if numbers <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == nil {
		g.n = make(map[string]uint64)
	}
	db := fsm.DatabaseName(database)
	g.n[db] += min(uint64(numbers), math.MaxUint64-g.n[db])
}

func (g *hiloGaps) byDatabase() map[string]uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.n)
}
