package server_test

// The commit-round trace: where one identity's time goes, stage by stage, on an in-process
// cluster. Every node tells a roundTrace what its identity batchers did (server.Config's
// OnIdentityRound) and when each Raft log entry passed each stage on it (cluster.Config's
// OnEntry); entries are joined across nodes by their log index. All nodes share this
// process's clock, so the stages of one entry on different nodes subtract.

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc/stats"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/batch"
)

// roundTrace collects the stamps of one measured run.
type roundTrace struct {
	leader string // the tag of the node that leads through the run

	mu      sync.Mutex
	on      bool
	entries map[uint64]*entryStamps
	// Per item of the identity batchers: how long it was queued before its batch was
	// proposed, on the leader (a caller of its own, or an item a follower relayed) and on
	// a follower (before its batch was relayed).
	leaderWait, relayedWait, followerWait []time.Duration
	// Per batch: the leader's commit (proposed → answered), a follower's relay call, sizes.
	leaderCommit, relayCall []time.Duration
	leaderSizes, relaySizes []int
	// Per NextIdentity call, as each node's gRPC server saw it: from its headers' arrival to
	// the end of the answer (the node's whole part, interceptors included), by leader or
	// follower.
	served map[string][]time.Duration
}

// entryStamps is when one log entry passed each stage, by node tag.
type entryStamps struct {
	proposed, dispatched, answered time.Time
	stored, applying, applied      map[string]time.Time
}

func newRoundTrace(leader string) *roundTrace {
	return &roundTrace{leader: leader, entries: make(map[uint64]*entryStamps)}
}

// start drops what came before (start-up, warm-up) and records from now on; stop ends it.
func (rt *roundTrace) start() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.on, rt.entries = true, make(map[uint64]*entryStamps)
	rt.leaderWait, rt.relayedWait, rt.followerWait = nil, nil, nil
	rt.leaderCommit, rt.relayCall, rt.leaderSizes, rt.relaySizes = nil, nil, nil, nil
	rt.served = map[string][]time.Duration{}
}

func (rt *roundTrace) stop() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.on = false
}

// onEntry is cluster.Config.OnEntry for the node tag.
func (rt *roundTrace) onEntry(tag string) func(cluster.EntryStage, uint64, uint64, time.Time) {
	return func(stage cluster.EntryStage, first, last uint64, at time.Time) {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if !rt.on {
			return
		}
		for i := first; i <= last; i++ {
			e := rt.entries[i]
			if e == nil {
				e = &entryStamps{stored: map[string]time.Time{}, applying: map[string]time.Time{}, applied: map[string]time.Time{}}
				rt.entries[i] = e
			}
			switch stage {
			case cluster.EntryProposed:
				e.proposed = at
			case cluster.EntryDispatched:
				e.dispatched = at
			case cluster.EntryAnswered:
				e.answered = at
			case cluster.EntryStored:
				e.stored[tag] = at
			case cluster.EntryApplying:
				e.applying[tag] = at
			case cluster.EntryApplied:
				e.applied[tag] = at
			}
		}
	}
}

// servedCalls is a gRPC stats handler for the node tag's client port: it times each
// NextIdentity call from its arrival to its end.
type servedCalls struct {
	rt  *roundTrace
	tag string
}

type arrivalKey struct{}

func (s servedCalls) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	if strings.HasSuffix(info.FullMethodName, "/NextIdentity") {
		return context.WithValue(ctx, arrivalKey{}, new(time.Time))
	}
	return ctx
}

func (s servedCalls) HandleRPC(ctx context.Context, st stats.RPCStats) {
	arrived, ok := ctx.Value(arrivalKey{}).(*time.Time)
	if !ok {
		return
	}
	switch st := st.(type) {
	case *stats.Begin:
		*arrived = st.BeginTime
	case *stats.End:
		route := "follower"
		if s.tag == s.rt.leader {
			route = "leader"
		}
		s.rt.mu.Lock()
		defer s.rt.mu.Unlock()
		if s.rt.on && st.Error == nil {
			s.rt.served[route] = append(s.rt.served[route], st.EndTime.Sub(*arrived))
		}
	}
}

func (servedCalls) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (servedCalls) HandleConn(context.Context, stats.ConnStats)                       {}

// onIdentityRound is server.Config.OnIdentityRound.
func (rt *roundTrace) onIdentityRound(leader bool, r batch.Round) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.on {
		return
	}
	for i, q := range r.Queued {
		switch {
		case !leader:
			rt.followerWait = append(rt.followerWait, r.Proposed.Sub(q))
		case r.Many[i]:
			rt.relayedWait = append(rt.relayedWait, r.Proposed.Sub(q))
		default:
			rt.leaderWait = append(rt.leaderWait, r.Proposed.Sub(q))
		}
	}
	if leader {
		rt.leaderCommit = append(rt.leaderCommit, r.Answered.Sub(r.Proposed))
		rt.leaderSizes = append(rt.leaderSizes, len(r.Queued))
	} else {
		rt.relayCall = append(rt.relayCall, r.Answered.Sub(r.Proposed))
		rt.relaySizes = append(rt.relaySizes, len(r.Queued))
	}
}

// roundStages are the stages of the leader's entries, each the time between two stamps.
type roundStages struct {
	queued, leaderStored, firstFollower, lastFollower, commitToFSM, fsm, answer, whole []time.Duration
	inFlight                                                                           []int
}

// stages measures every entry the leader proposed and saw through to its answer.
func (rt *roundTrace) stages() roundStages {
	var s roundStages
	type span struct{ from, to time.Time }
	var rounds []span
	for _, e := range rt.entries {
		lead, ok := e.stored[rt.leader]
		if e.proposed.IsZero() || e.dispatched.IsZero() || e.answered.IsZero() || !ok || e.applying[rt.leader].IsZero() || e.applied[rt.leader].IsZero() {
			continue
		}
		var followers []time.Time
		for tag, at := range e.stored {
			if tag != rt.leader {
				followers = append(followers, at)
			}
		}
		if len(followers) == 0 {
			continue
		}
		slices.SortFunc(followers, time.Time.Compare)
		quorum := followers[0]
		if lead.After(quorum) {
			quorum = lead
		}
		s.queued = append(s.queued, e.dispatched.Sub(e.proposed))
		s.leaderStored = append(s.leaderStored, lead.Sub(e.dispatched))
		s.firstFollower = append(s.firstFollower, followers[0].Sub(lead))
		s.lastFollower = append(s.lastFollower, followers[len(followers)-1].Sub(lead))
		s.commitToFSM = append(s.commitToFSM, e.applying[rt.leader].Sub(quorum))
		s.fsm = append(s.fsm, e.applied[rt.leader].Sub(e.applying[rt.leader]))
		s.answer = append(s.answer, e.answered.Sub(e.applied[rt.leader]))
		s.whole = append(s.whole, e.answered.Sub(e.proposed))
		rounds = append(rounds, span{e.proposed, e.answered})
	}
	// How many other rounds were under way when each began.
	for _, r := range rounds {
		n := 0
		for _, o := range rounds {
			if o.from.Before(r.from) && o.to.After(r.from) {
				n++
			}
		}
		s.inFlight = append(s.inFlight, n)
	}
	return s
}

// report writes the breakdown: p50 and p99 of every stage, in the order a call passes them.
func (rt *roundTrace) report(w io.Writer, callers map[string][]time.Duration) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	s := rt.stages()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tn\tp50 ms\tp99 ms\t")
	row := func(name string, d []time.Duration) {
		if len(d) == 0 {
			fmt.Fprintf(tw, "%s\t0\t\t\t\n", name)
			return
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t\n", name, len(d), ms(quantile(d, 0.50)), ms(quantile(d, 0.99)))
	}
	for _, route := range slices.Sorted(maps.Keys(callers)) {
		row("call, caller on "+route+" (end to end, at the caller)", callers[route])
		row("  at the node: arrival → answer sent", rt.served[route])
	}
	row("follower: queued until its batch is relayed", rt.followerWait)
	row("follower: relay call to the leader (batch)", rt.relayCall)
	row("leader: own caller queued until proposed", rt.leaderWait)
	row("leader: relayed item queued until proposed", rt.relayedWait)
	row("leader: batch commit (proposed → answered)", rt.leaderCommit)
	row("  raft Apply → raft's leader loop dispatches it", s.queued)
	row("  dispatched → stored on leader (append+fsync)", s.leaderStored)
	row("  leader stored → first follower stored (send+append+fsync)", s.firstFollower)
	row("  leader stored → last follower stored", s.lastFollower)
	row("  quorum stored → leader FSM begins (commit notice)", s.commitToFSM)
	row("  leader FSM apply", s.fsm)
	row("  FSM applied → Apply returns", s.answer)
	row("  raft Apply → Apply returns (whole round)", s.whole)
	_ = tw.Flush()
	fmt.Fprintf(w, "entries: %d; batch size p50/p99: leader %d/%d, relay %d/%d; other rounds in flight when one began, p50/p99: %d/%d\n",
		len(s.whole), quantile(rt.leaderSizes, 0.5), quantile(rt.leaderSizes, 0.99),
		quantile(rt.relaySizes, 0.5), quantile(rt.relaySizes, 0.99), quantile(s.inFlight, 0.5), quantile(s.inFlight, 0.99))
}

// quantile is the q-quantile of xs (sorted in place); the zero value when xs is empty.
func quantile[T int | time.Duration](xs []T, q float64) T {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[min(int(q*float64(len(xs))), len(xs)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
