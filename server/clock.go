package server

import (
	"context"
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

// clockWatch is what the last measurement found.
type clockWatch struct {
	// offset is this node's clock minus the leader's, in nanoseconds; known says there was a
	// measurement (the leader's is 0).
	offset atomic.Int64
	known  atomic.Bool
	// warnedAt is when the warning was last logged, zero while the offset is within the
	// threshold. Only watchClock's goroutine touches it.
	warnedAt time.Time
}

// ClockOffset is this node's wall clock minus the leader's at the last measurement; ok is
// false before the first one. The leader's is 0 from the start: it is the reference.
func (s *core) ClockOffset() (offset time.Duration, ok bool) {
	if s.node.IsLeader() {
		return 0, true
	}
	return time.Duration(s.clock.offset.Load()), s.clock.known.Load()
}

// watchClock measures this node's clock against the leader's every ClockProbeInterval until
// ctx ends.
func (s *core) watchClock(ctx context.Context) {
	t := time.NewTicker(s.cfg.ClockProbeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.measureClock(ctx)
		}
	}
}

// measureClock takes one measurement. A leader that does not answer in time, or whose build
// sends no clock, leaves the last one standing: Status and the log say why a leader does not
// answer.
func (s *core) measureClock(ctx context.Context) {
	if s.node.IsLeader() {
		s.clockMeasured(0, 0, s.cfg.Tag)
		return
	}
	leaderID, addr := s.node.Leader()
	if addr == "" {
		return
	}
	sent := s.cfg.Now()
	header, err := s.probeNode(ctx, addr)
	received := s.cfg.Now()
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
	s.clockMeasured(offset, roundTrip, s.tagOf(leaderID))
}

// clockMeasured records a measurement against leader (a tag), tells the Observer, and warns
// when the offset is past ClockOffsetWarn: at once, then every clockWarnEvery while it stays,
// and once when it is back within.
func (s *core) clockMeasured(offset, roundTrip time.Duration, leader string) {
	s.clock.offset.Store(int64(offset))
	s.clock.known.Store(true)
	s.observer().ClockOffset(offset)
	now := s.cfg.Now()
	attrs := []any{"offset_seconds", seconds(offset), "leader", leader,
		"round_trip_seconds", seconds(roundTrip), "threshold_seconds", seconds(s.cfg.ClockOffsetWarn)}
	switch past := offset > s.cfg.ClockOffsetWarn || offset < -s.cfg.ClockOffsetWarn; {
	case past && (s.clock.warnedAt.IsZero() || now.Sub(s.clock.warnedAt) >= clockWarnEvery):
		s.clock.warnedAt = now
		s.log.Warn("this node's clock is off the leader's by more than --clock-offset-warn: "+
			"numeric IDs minted here carry this node's time, and a clock set back makes them wait; fix the node's time sync (NTP)", attrs...)
	case !past && !s.clock.warnedAt.IsZero():
		s.clock.warnedAt = time.Time{}
		s.log.Info("this node's clock is back within --clock-offset-warn of the leader's", attrs...)
	}
}

// seconds is d in seconds, to the microsecond, as the logs write offsets.
func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1e6) / 1e6 }
