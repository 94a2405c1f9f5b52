package forward

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// Hop is one call's way to the leader: make the call on Conn with Context and CallOptions,
// then pass its error through Error.
type Hop struct {
	Conn    *grpc.ClientConn
	f       *Forwarder
	leader  string // the ID of the leader the hop goes to
	caller  context.Context
	ctx     context.Context
	cancel  func()
	trailer metadata.MD
	peer    peer.Peer
	// secretless is set when this node knew no cluster secret as the hop opened, so that its
	// call carries none.
	secretless bool
}

// Context is the hop's context: the caller's, bounded by the hop's Limits, with the metadata
// the hop passes on.
func (h *Hop) Context() context.Context { return h.ctx }

// CallOptions let Error tell the leader's answers from failures on the way to it, and a call
// that never left this node from one the leader may have acted on. Every call on the hop
// must carry them.
func (h *Hop) CallOptions() []grpc.CallOption {
	return []grpc.CallOption{grpc.Trailer(&h.trailer), grpc.Peer(&h.peer)}
}

// Close ends the hop.
func (h *Hop) Close() { h.cancel() }

// Error is what the caller gets for err from a call on the hop: its own cancel or deadline;
// the leader's answer, passed on as it is; or, when the leader changed, took too long or
// could not be reached, the forwarder's refusal of ErrUnreached (the call never left this
// node) or ErrNoAnswer (it did, and the leader may have acted on it).
func (h *Hop) Error(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case h.caller.Err() != nil:
		return status.FromContextError(h.caller.Err()).Err()
	case status.Code(err) == codes.DeadlineExceeded && h.callersDeadline():
		// The leader's clock saw the deadline gRPC passed on a moment before ours did.
		return status.FromContextError(context.DeadlineExceeded).Err()
	case len(h.trailer.Get(answeredByTrailer)) > 0 && !h.boundRanOut(err):
		return err
	}
	var answer forwarderAnswer
	if errors.As(err, &answer) {
		return answer.err
	}
	if h.deadlinePassed() {
		// The hop's bound has passed, and gRPC, which checks the deadline against the clock,
		// may end the call before the bound's timer has cancelled the hop: wait for it, so
		// that the refusal names the bound's cause. The timer is due, so this returns at once.
		<-h.ctx.Done()
	}
	why := context.Cause(h.ctx)
	if why == nil {
		why = err
	}
	if h.peer.Addr == nil {
		return h.f.cfg.Refuse(fmt.Errorf("%w: %w", ErrUnreached, why))
	}
	return h.f.cfg.Refuse(fmt.Errorf("%w: %w", ErrNoAnswer, why))
}

// forwarderAnswer is an answer the forwarding node made itself from what the leader said (Answer).
type forwarderAnswer struct{ err error }

func (a forwarderAnswer) Error() string { return a.err.Error() }
func (a forwarderAnswer) Unwrap() error { return a.err }

// Answer marks err, returned by a call on a hop, as the forwarding node's own answer, which
// Error passes on as it is: the leader answered, but with nothing that carries its mark (a
// leader on a build that does not serve the call refuses it before any of its own code runs),
// and the forwarding node knows what that means, and that nothing was done.
func Answer(err error) error { return forwarderAnswer{err} }

// boundRanOut reports whether err is the leader's refusal of a deadline that was the hop's
// own bound, and that bound has passed here too: the leader saw the deadline gRPC passed on
// no later than this node did (a tie, when both read the same clock), and the refusal is the
// bound's, not an answer of the leader's. (gRPC rounds the deadline it passes on up, and the
// leader starts it when the call arrives, so the leader does not see it pass first unless
// the two clocks run at different rates.)
func (h *Hop) boundRanOut(err error) bool {
	return status.Code(err) == codes.DeadlineExceeded && h.deadlinePassed()
}

// deadlinePassed reports whether the hop's context has a deadline and this node's clock has
// reached it.
func (h *Hop) deadlinePassed() bool {
	d, ok := h.ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// callersDeadline reports whether the hop's deadline is its caller's, not its own bound's.
func (h *Hop) callersDeadline() bool {
	caller, ok := h.caller.Deadline()
	own, _ := h.ctx.Deadline()
	return ok && !own.Before(caller)
}

// Remote makes a call on a hop's connection.
type Remote[Req, Resp any] func(cc *grpc.ClientConn, ctx context.Context, req Req, opts ...grpc.CallOption) (Resp, error)

// Do opens a hop with lim and runs call on it, which returns the call's error; Do returns
// what Error makes of it, or ErrSelf (the caller then serves the call itself). Two failures
// are known to have left the leader untouched, and Do runs call once more after each, at most
// once each:
//   - the leader refused the call for want of the cluster secret that this node does not know
//     yet (it has not caught up with the log: a new cluster's first moments, a node that has
//     just joined or restarted): Do waits until this node knows the secret, or refuses with
//     ErrBehind if it does not learn it within the election wait;
//   - the call could not connect to the leader (a killed leader's port refuses at once): Do
//     waits until this node names another leader, or none (an election: Open waits for it),
//     or the connection is up again, within the election wait. Refused at once instead, a
//     call made during a failover failed for as long as this node still believed in the dead
//     leader (up to three heartbeat timeouts), and its caller's backoff, not the election,
//     decided when it was answered.
func (f *Forwarder) Do(ctx context.Context, lim Limits, call func(*Hop) error) error {
	var waitedSecret, waitedLeader bool
	for {
		h, err := f.Open(ctx, lim)
		if err != nil {
			return err
		}
		err = call(h)
		switch {
		case !waitedSecret && h.refusedForTheSecret(err):
			h.Close()
			waitedSecret = true
			if !f.awaitSecret(ctx) {
				return f.cfg.Refuse(ErrBehind)
			}
			continue
		case !waitedLeader && h.unreached(err):
			h.Close()
			waitedLeader = true
			if f.awaitLeaderOrConn(ctx, h.leader, h.Conn) {
				continue
			}
		case !waitedLeader && h.answered(err) && f.cfg.NothingDone(err):
			h.Close()
			waitedLeader = true
			if f.awaitAnotherLeader(ctx, h.leader) {
				continue
			}
		}
		err = h.Error(err)
		h.Close()
		return err
	}
}

// unreached reports whether err's call failed before it left this node (there was no
// connection to the leader), and neither its caller nor the hop's limits ended it. The leader
// did nothing with such a call.
func (h *Hop) unreached(err error) bool {
	return err != nil && h.caller.Err() == nil && h.ctx.Err() == nil && h.peer.Addr == nil &&
		len(h.trailer.Get(answeredByTrailer)) == 0
}

// answered reports whether err is the leader's own answer, not a failure on the way to it.
func (h *Hop) answered(err error) bool {
	return err != nil && len(h.trailer.Get(answeredByTrailer)) > 0
}

// awaitAnotherLeader waits until this node names a leader other than leaderID, within ctx and
// the election wait; false if it did not.
func (f *Forwarder) awaitAnotherLeader(ctx context.Context, leaderID string) bool {
	return pollFor(ctx, f.cfg.ElectionWait, func() bool {
		id, _ := f.cfg.Cluster.Leader()
		return id != "" && id != leaderID
	})
}

// HandOff reports whether a call this node served as leader, which local refused with err,
// should go to the leader after all: err says nothing was done (NothingDone), the call did not
// arrive from another node, and once any hand-over of leadership under way here has ended,
// this node no longer leads. It waits for that hand-over.
func (f *Forwarder) HandOff(ctx context.Context, err error) bool {
	if err == nil || Arrived(ctx) || !f.cfg.NothingDone(err) {
		return false
	}
	f.cfg.Cluster.AwaitHandOver(ctx)
	return ctx.Err() == nil && !f.cfg.Cluster.IsLeader()
}

// awaitLeaderOrConn waits until this node names a leader other than leaderID (or none), or cc
// is connected again, within ctx and the election wait; false if neither happened.
func (f *Forwarder) awaitLeaderOrConn(ctx context.Context, leaderID string, cc *grpc.ClientConn) bool {
	return pollFor(ctx, f.cfg.ElectionWait, func() bool {
		id, _ := f.cfg.Cluster.Leader()
		return id != leaderID || cc.GetState() == connectivity.Ready
	})
}

// refusedForTheSecret reports whether the leader refused err's call for want of the cluster
// secret, which this node did not send because it did not know it yet.
func (h *Hop) refusedForTheSecret(err error) bool {
	return h.secretless && status.Code(err) == codes.Unauthenticated && len(h.trailer.Get(answeredByTrailer)) > 0
}

// awaitSecret waits until this node knows the cluster secret, within ctx and the election wait.
func (f *Forwarder) awaitSecret(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.ElectionWait)
	defer cancel()
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for len(f.cfg.Secret.get()) == 0 {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}

// Call serves req with local when the call is this node's (Local), and otherwise takes it to
// the leader with remote and brings the answer back. A call local refused because this node
// handed leadership over goes to the new leader (HandOff).
func Call[Req, Resp any](f *Forwarder, ctx context.Context, req Req, lim Limits, local func(context.Context, Req) (Resp, error), remote Remote[Req, Resp]) (Resp, error) {
	if f.Local(ctx) {
		resp, err := local(ctx, req)
		if !f.HandOff(ctx, err) {
			return resp, err
		}
	}
	var resp Resp
	err := f.Do(ctx, lim, func(h *Hop) error {
		var err error
		resp, err = remote(h.Conn, h.Context(), req, h.CallOptions()...)
		return err
	})
	if errors.Is(err, ErrSelf) {
		return local(ctx, req)
	}
	return resp, err
}
