package server

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"sync/atomic"
	"time"
)

// A node's wall clock against the leader's. Numeric IDs carry the minting node's time, worker
// leases lapse by the leader's clock, and a clock that steps back makes the minter refuse
// (flake.ErrClockBehind): an operator should hear of a drifting clock before a step does that.
// Every ClockProbeInterval a node that does not lead asks the leader's health service on its
// internal port, as Status's reachability probe does; the leader's answer carries its wall
// clock (clockHeader), read while answering. With t0 and t3 this node's clock when the probe
// left and when the answer came, and t1 = t2 the leader's, the offset is NTP's with the round
// trip halved: ((t1-t0)+(t2-t3))/2 is how far the leader is ahead, and this node's offset is
// its negative, this node's clock minus the leader's. Its error is at most half the round
// trip, which the warning names. The probe is a gRPC call on its own goroutine, bounded by
// probeTimeout, never on the Raft path.

const (
	// DefaultClockProbeInterval is Config.ClockProbeInterval when it is 0: often enough that a
	// drifting clock shows within seconds, rarely enough to cost the leader nothing.
	DefaultClockProbeInterval = 10 * time.Second
	// DefaultClockOffsetWarn is Config.ClockOffsetWarn when it is 0: half the second a numeric
	// minter may borrow ahead of its clock (flake.DefaultMaxBorrow) before it refuses.
	DefaultClockOffsetWarn = 500 * time.Millisecond
	// clockWarnEvery is how often the warning is repeated while the offset stays past the
	// threshold: often enough to be seen in a day's log, rarely enough not to flood it.
	clockWarnEvery = 10 * time.Minute
	// clockHeader is the answering node's wall clock, in Unix nanoseconds, in its answer to a
	// health probe on the internal port (withFactsOnProbe).
	clockHeader = "idnode-clock-unix-nano"
)

// clockWatch measures this node's clock against the leader's and keeps what the last
// measurement found. It needs of the node only who leads, a health probe to ask the leader,
// and the tag of a Raft ID to name the leader in its warnings.
type clockWatch struct {
	node  clockNode
	probe healthProbe
	tagOf func(id string) string
	// tag is this node's; now, every and warn are Config's Now, ClockProbeInterval and
	// ClockOffsetWarn.
	tag         string
	now         func() time.Time
	every, warn time.Duration
	log         *slog.Logger
	observer    Observer
	// offset is this node's clock minus the leader's, in nanoseconds; known says there was a
	// measurement (the leader's is 0).
	offset atomic.Int64
	known  atomic.Bool
	// warnedAt is when the warning was last logged, zero while the offset is within the
	// threshold. Only watch's goroutine touches it.
	warnedAt time.Time
}

// clockNode is what the clock watch needs of the node (Cluster).
type clockNode interface {
	IsLeader() bool
	Leader() (id, address string)
}

// Offset is this node's wall clock minus the leader's at the last measurement; ok is false
// before the first one. The leader's is 0 from the start: it is the reference.
func (w *clockWatch) Offset() (offset time.Duration, ok bool) {
	if w.node.IsLeader() {
		return 0, true
	}
	return time.Duration(w.offset.Load()), w.known.Load()
}

// watch measures this node's clock against the leader's every ClockProbeInterval until ctx
// ends.
func (w *clockWatch) watch(ctx context.Context) {
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.measure(ctx)
		}
	}
}

// measure takes one measurement. A leader that does not answer in time, or whose build
// sends no clock, leaves the last one standing: Status and the log say why a leader does not
// answer.
func (w *clockWatch) measure(ctx context.Context) {
	if w.node.IsLeader() {
		w.measured(0, 0, w.tag)
		return
	}
	leaderID, addr := w.node.Leader()
	if addr == "" {
		return
	}
	sent := w.now()
	header, err := w.probe.header(ctx, addr)
	received := w.now()
	roundTrip := received.Sub(sent)
	if err != nil || roundTrip < 0 {
		return
	}
	v := header.Get(clockHeader)
	if len(v) == 0 {
		return
	}
	leaderNs, err := strconv.ParseInt(v[0], 10, 64)
	if err != nil {
		return
	}
	// Round(0) drops the monotonic reading, so Sub compares wall clocks; Sub saturates, so a
	// leader's clock at either end of int64 cannot overflow it.
	offset := sent.Add(roundTrip / 2).Round(0).Sub(time.Unix(0, leaderNs))
	w.measured(offset, roundTrip, w.tagOf(leaderID))
}

// measured records a measurement against leader (a tag), tells the Observer, and warns
// when the offset is past ClockOffsetWarn: at once, then every clockWarnEvery while it stays,
// and once when it is back within.
func (w *clockWatch) measured(offset, roundTrip time.Duration, leader string) {
	w.offset.Store(int64(offset))
	w.known.Store(true)
	w.observer.ClockOffset(offset)
	now := w.now()
	attrs := []any{"offset_seconds", seconds(offset), "leader", leader,
		"round_trip_seconds", seconds(roundTrip), "threshold_seconds", seconds(w.warn)}
	switch past := offset > w.warn || offset < -w.warn; {
	case past && (w.warnedAt.IsZero() || now.Sub(w.warnedAt) >= clockWarnEvery):
		w.warnedAt = now
		w.log.Warn("this node's clock is off the leader's by more than --clock-offset-warn: "+
			"numeric IDs minted here carry this node's time, and a clock set back makes them wait; fix the node's time sync (NTP)", attrs...)
	case !past && !w.warnedAt.IsZero():
		w.warnedAt = time.Time{}
		w.log.Info("this node's clock is back within --clock-offset-warn of the leader's", attrs...)
	}
}

// seconds is d in seconds, to the microsecond, as the logs write offsets.
func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1e6) / 1e6 }
