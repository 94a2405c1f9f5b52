package server

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

const (
	// forwardTimeout bounds a relayed call, so a follower cut off from a leader it still
	// believes in refuses within DESIGN §3's "about one election timeout" instead of waiting
	// for the caller's deadline.
	forwardTimeout = 1500 * time.Millisecond
	// leaderPollInterval is how often a relayed call checks the leader has not changed.
	leaderPollInterval = 25 * time.Millisecond
)

var (
	errNoLeader      = errors.New("no leader is known")
	errLeaderChanged = errors.New("the leader changed or became unreachable while the call was relayed to it")
)

// remoteCall relays req over a connection to the leader.
type remoteCall[Req, Resp any] func(*grpc.ClientConn, grpc.CallOption, context.Context, Req) (Resp, error)

// viaIDs adapts an IdService client method for forward.
func viaIDs[Req, Resp any](m func(idnodev1.IdServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) remoteCall[Req, Resp] {
	return func(cc *grpc.ClientConn, opt grpc.CallOption, ctx context.Context, r Req) (Resp, error) {
		return m(idnodev1.NewIdServiceClient(cc), ctx, r, opt)
	}
}

// viaCluster adapts a ClusterService client method for forward.
func viaCluster[Req, Resp any](m func(idnodev1.ClusterServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) remoteCall[Req, Resp] {
	return func(cc *grpc.ClientConn, opt grpc.CallOption, ctx context.Context, r Req) (Resp, error) {
		return m(idnodev1.NewClusterServiceClient(cc), ctx, r, opt)
	}
}

// forward serves req with local when this node leads (or the call was already relayed once),
// and otherwise relays it to the leader and passes its answer back.
func forward[Req, Resp any](s *Server, ctx context.Context, req Req, local func(context.Context, Req) (Resp, error), remote remoteCall[Req, Resp]) (Resp, error) {
	return forwardWatching(s, ctx, req, local, remote, true)
}

// forwardWatching is forward; watchLeader ends the relayed call as soon as this node stops
// seeing that leader, which is wrong only for a call that changes the leader itself.
func forwardWatching[Req, Resp any](s *Server, ctx context.Context, req Req, local func(context.Context, Req) (Resp, error), remote remoteCall[Req, Resp], watchLeader bool) (Resp, error) {
	var zero Resp
	if s.node.IsLeader() || relayed(ctx) {
		return local(ctx, req)
	}
	leaderID, cc, err := s.leaderConn(ctx)
	if err != nil {
		return zero, s.noQuorum(err)
	}
	var fctx context.Context
	var cancel context.CancelFunc
	if watchLeader {
		fctx, cancel = s.relayContext(ctx, leaderID)
	} else {
		fctx, cancel = context.WithTimeoutCause(ctx, membershipTimeout, errLeaderChanged)
	}
	defer cancel()
	fctx = withCallerAuth(ctx, fctx)
	var trailer metadata.MD
	resp, err := remote(cc, grpc.Trailer(&trailer), fctx, req)
	if err != nil {
		return zero, s.relayError(ctx, fctx, trailer, err)
	}
	return resp, nil
}

// relayError explains a failed relayed call: the caller gave up, the leader changed or could
// not be reached (no quorum), or the leader answered with an error of its own (passed on).
func (s *Server) relayError(ctx, rctx context.Context, trailer metadata.MD, err error) error {
	switch {
	case ctx.Err() != nil:
		return status.FromContextError(ctx.Err()).Err()
	case context.Cause(rctx) != nil:
		return s.noQuorum(context.Cause(rctx))
	case len(trailer.Get(answeredByTrailer)) > 0:
		return err
	}
	return s.noQuorum(err) // the leader never answered: the link to it is down
}

// leaderConn is the connection to the leader's internal services, at its Raft address
// (internal.go). Before this node has ever known a leader (it has just started) a call waits
// for the first election, within ctx and firstElectionWait, rather than being refused while a
// leader is a moment away. A node that has known one refuses at once as before: it may be cut
// off in a minority, which must hear "no quorum" quickly.
func (s *Server) leaderConn(ctx context.Context) (string, *grpc.ClientConn, error) {
	id, addr := s.node.Leader()
	if id == "" && !s.sawLeader.Load() {
		id, addr = s.awaitFirstLeader(ctx)
	}
	if id == "" {
		return "", nil, errNoLeader
	}
	s.sawLeader.Store(true)
	cc, err := s.peers.conn(addr)
	return id, cc, err
}

// firstElectionWait bounds the wait for a node's first election: a few election timeouts.
const firstElectionWait = 2 * time.Second

// awaitFirstLeader polls for a leader until one is known, ctx ends or firstElectionWait passes.
func (s *Server) awaitFirstLeader(ctx context.Context) (id, addr string) {
	ctx, cancel := context.WithTimeout(ctx, firstElectionWait)
	defer cancel()
	t := time.NewTicker(leaderPollInterval)
	defer t.Stop()
	for {
		if id, addr = s.node.Leader(); id != "" {
			return id, addr
		}
		select {
		case <-ctx.Done():
			return "", ""
		case <-t.C:
		}
	}
}

// relayContext ends a relayed call after forwardTimeout, or as soon as this node stops seeing
// leaderID as the leader: then the leader is gone or cut off, and the caller should hear
// "no quorum" now rather than at its own deadline.
func (s *Server) relayContext(ctx context.Context, leaderID string) (context.Context, context.CancelFunc) {
	fctx, cancel := context.WithCancelCause(ctx)
	tctx, tcancel := context.WithTimeoutCause(fctx, forwardTimeout, errLeaderChanged)
	go func() {
		t := time.NewTicker(leaderPollInterval)
		defer t.Stop()
		for {
			select {
			case <-tctx.Done():
				return
			case <-t.C:
				if id, _ := s.node.Leader(); id != leaderID {
					cancel(errLeaderChanged)
					return
				}
			}
		}
	}()
	return tctx, func() { tcancel(); cancel(nil) }
}
