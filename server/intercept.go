package server

import (
	"context"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/docid"
)

// interceptors are what every call passes through before its service's handler: who the
// caller is and whether it may make the call (auth.go, keys.go), the audit log of admin
// calls, each database's call rate, the leader hint on every answer, and the Observer. They
// resolve a request once (call.go) for all of them and for the handler after.
type interceptors struct {
	*core
	calls    callBuckets                       // per-database call limits (ratelimit.go)
	leaderMD atomic.Pointer[leaderHeaderCache] // leaderhint.go
	issued   issuedTally                       // what Status says this node handed out (observe.go)
}

// unary is the client port's unary interceptor: withReason, audit, refuseUndecodable,
// leaderHint, authorize, limitCalls, observe and checkUTF8, in that order, run as steps of one call
// rather than as grpc-go's chain, which adds a closure and a call level per interceptor to
// every call. It resolves the request once (call.go) for the steps and the handler after.
func (s *interceptors) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	var resp any
	var err error
	if audited(info.FullMethod, req) { // the closure only for the few admin calls
		resp, err = s.audit(ctx, req, info, func(ctx context.Context, req any) (any, error) {
			return s.serveUnary(ctx, req, info, handler)
		})
	} else {
		resp, err = s.serveUnary(ctx, req, info, handler)
	}
	if err != nil {
		err = withReasonErr(err)
	}
	return resp, err
}

// serveUnary is unary but for the reason attached to its errors.
func (s *interceptors) serveUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := takeUndecodable(req); err != nil {
		return nil, malformedRequest(req, err)
	}
	s.setLeaderHint(ctx)
	return s.serveResolved(ctx, req, info, handler, true)
}

// internalUnary is the internal server's observe and checkUTF8 as one interceptor, over the
// call resolved once, like unary's. Its access was checked by leaderAccess, and a forwarded
// call was limited where it arrived.
func (s *interceptors) internalUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	return s.serveResolved(ctx, req, info, handler, false)
}

// serveResolved resolves the call and, for a call on the client port (public), checks its
// access and its database's call rate; it refuses a call that needs the state while this node
// is fenced (fence.go); then it runs the handler on its checked request, reporting the answer.
func (s *interceptors) serveResolved(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler, public bool) (any, error) {
	c := s.resolveCall(ctx, info.FullMethod, req)
	ctx = withCall(ctx, c)
	if public {
		if err := s.checkAccess(ctx, c, req); err != nil {
			return nil, err
		}
		if err := s.checkCallRate(c); err != nil {
			return nil, err
		}
	}
	if err := s.refuseFenced(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	timed := public && c.kind == docid.Identity && s.cfg.OnIdentityCall != nil
	var start time.Time
	if timed {
		start = time.Now()
	}
	resp, err := checkedHandle(ctx, req, handler)
	if timed {
		s.cfg.OnIdentityCall(time.Since(start))
	}
	s.report(ctx, c, resp, err)
	return resp, err
}

// checkedHandle is checkUTF8's step: the handler runs on a request whose strings are UTF-8
// and whose request_id is within its bound (requestid.go).
func checkedHandle(ctx context.Context, req any, handler grpc.UnaryHandler) (any, error) {
	if err := checkStrings(req); err != nil {
		return nil, err
	}
	if err := checkRequestID(req); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}
