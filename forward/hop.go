package forward

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// Hop is one call's way to the leader: make the call on Conn with Context and CallOptions,
// then pass its error through Error.
type Hop struct {
	Conn    *grpc.ClientConn
	f       *Forwarder
	caller  context.Context
	ctx     context.Context
	cancel  func()
	trailer metadata.MD
	peer    peer.Peer
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
	case len(h.trailer.Get(answeredByTrailer)) > 0:
		return err
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

// callersDeadline reports whether the hop's deadline is its caller's, not its own bound's.
func (h *Hop) callersDeadline() bool {
	caller, ok := h.caller.Deadline()
	own, _ := h.ctx.Deadline()
	return ok && !own.Before(caller)
}

// Remote makes a call on a hop's connection.
type Remote[Req, Resp any] func(cc *grpc.ClientConn, ctx context.Context, req Req, opts ...grpc.CallOption) (Resp, error)

// Call serves req with local when the call is this node's (Local), and otherwise takes it to
// the leader with remote and brings the answer back.
func Call[Req, Resp any](f *Forwarder, ctx context.Context, req Req, lim Limits, local func(context.Context, Req) (Resp, error), remote Remote[Req, Resp]) (Resp, error) {
	if f.Local(ctx) {
		return local(ctx, req)
	}
	var zero Resp
	h, err := f.Open(ctx, lim)
	if errors.Is(err, ErrSelf) {
		return local(ctx, req)
	}
	if err != nil {
		return zero, err
	}
	defer h.Close()
	resp, err := remote(h.Conn, h.Context(), req, h.CallOptions()...)
	if err != nil {
		return zero, h.Error(err)
	}
	return resp, nil
}
