package server

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// leaderService serves the Leader service: the leader's half of every public call that must
// run on the leader, each service's own (idLeader, clusterLeader, seriesLeader). The public
// handler checks the call where it arrived and then runs the method of the same name here
// (on the leader) or through the hop (forward.Call, relay.go); that method trusts the
// checks its caller made and is never the entry point of a client's call. No Unimplemented
// server is embedded, so a Leader RPC without its method does not compile.
type leaderService struct {
	forwardv1.UnsafeLeaderServer
	idLeader
	clusterLeader
	seriesLeader
}

var _ forwardv1.LeaderServer = leaderService{}

// viaForward adapts a Forward client method (a node's own reservations) for forward.Call.
func viaForward[Req, Resp any](m func(forwardv1.ForwardClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return via(forwardv1.NewForwardClient, m)
}

func via[C, Req, Resp any](client func(grpc.ClientConnInterface) C, m func(C, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return func(cc *grpc.ClientConn, ctx context.Context, r Req, opts ...grpc.CallOption) (Resp, error) {
		return m(client(cc), ctx, r, opts...)
	}
}

// forwardStream runs a server-streaming call's leader half (local) here when this node leads,
// else on the leader through the hop by the public name (public), or through the Leader RPC
// of the same name (old) when the leader's build serves only that and the cluster version has
// not retired it (relay.go). It passes the leader's messages on to out.
func forwardStream[Req, Msg any](s *core, ctx context.Context, req Req, out grpc.ServerStreamingServer[Msg],
	local func(Req, grpc.ServerStreamingServer[Msg]) error, public, old forward.Remote[Req, grpc.ServerStreamingClient[Msg]]) error {
	if s.fwd.Local(ctx) {
		return local(req, out)
	}
	var sendErr error // the caller's side of the stream: not the hop's to explain
	err := s.fwd.Do(ctx, forward.Stream, func(h *forward.Hop) error {
		sent, err := passOn(h, public, req, out, &sendErr)
		if sent {
			return err
		}
		viaLeaderService, err := s.olderLeaders.answered(h.Context(), err)
		if viaLeaderService {
			_, err = passOn(h, old, req, out, &sendErr)
		}
		return err
	})
	switch {
	case errors.Is(err, forward.ErrSelf):
		return local(req, out)
	case sendErr != nil:
		return sendErr
	}
	return err
}

// passOn opens a server-streaming call with req on the hop and sends what it answers on to
// out, until it ends or out fails (sendErr). sent says whether out got any message.
func passOn[Req, Msg any](h *forward.Hop, open forward.Remote[Req, grpc.ServerStreamingClient[Msg]], req Req,
	out grpc.ServerStreamingServer[Msg], sendErr *error) (sent bool, err error) {
	in, err := open(h.Conn, h.Context(), req, h.CallOptions()...)
	if err != nil {
		return false, err
	}
	for {
		m, err := in.Recv()
		if errors.Is(err, io.EOF) {
			return sent, nil
		}
		if err != nil {
			return sent, err
		}
		if *sendErr = out.Send(m); *sendErr != nil {
			return sent, nil
		}
		sent = true
	}
}

// newForwarder is node's way to the leader. Every refusal on the way is "no quorum" (refuse).
// The caller's authorization travels along for a leader that cannot tell the hop came from a
// node (no cluster secret yet: see leaderAccess).
func newForwarder(cfg Config, node Cluster, refuse func(error) error) *forward.Forwarder {
	return forward.New(forward.Config{
		Cluster:      node,
		Dial:         cfg.Dial,
		TLS:          cfg.PeerTLS,
		ElectionWait: cfg.ElectionWait,
		Refuse:       refuse,
		PassOn:       []string{authorizationHeader},
		Secret:       node.FSM().ClusterSecret,
		DialOptions:  cfg.Tracing.DialOptions(),
		NothingDone:  func(err error) bool { return reason.Of(err) == reason.NoQuorum },
	})
}

// pagedRequest is a listing's request (ListIdentities, GetClaims).
type pagedRequest interface {
	GetPageSize() int32
	GetPageToken() string
	GetDatabase() string
}

// listed is a listing where it arrived: its page size and database fixed in the request (fix),
// and one of this node's listing slots held while its leader half answers, here or through
// the hop.
func listed[Req pagedRequest, Resp any](s *core, ctx context.Context, req Req, fix func(size int32, db string),
	leader func(context.Context, Req) (Resp, error), remote forward.Remote[Req, Resp]) (Resp, error) {
	var none Resp
	size, _, err := pageOf(req.GetPageSize(), req.GetPageToken())
	if err != nil {
		return none, err
	}
	db, err := databaseOf(ctx, req.GetDatabase())
	if err != nil {
		return none, err
	}
	fix(int32(size), db)
	release, err := s.listings.acquire(ctx)
	if err != nil {
		return none, err
	}
	defer release()
	return forward.Call(s.fwd, ctx, req, forward.Unary, leader, remote)
}

// arriving resolves a call where it arrived: its database into the field (the metadata does
// not travel to the leader; the field does) and, where the call records one, who the caller
// proved to be into actor, replacing whatever the caller sent.
func (s *core) arriving(ctx context.Context, database, actor *string) error {
	db, err := databaseOf(ctx, *database)
	if err != nil {
		return err
	}
	*database = db
	if actor != nil {
		*actor = s.actorOf(ctx)
	}
	return nil
}

// barrier is a read barrier on the leader (cluster.Node.ReadBarrier): what the FSM answers
// after it is current. Its errors are gRPC statuses.
func (s *core) barrier(ctx context.Context) error {
	if err := s.node.ReadBarrier(ctx); err != nil {
		return s.raftError(err)
	}
	return nil
}

// startPage begins a listing's leader half: where the page starts, then slotted's slot and
// read barrier.
func (s *core) startPage(ctx context.Context, size int32, token string) (after string, release func(), err error) {
	if _, after, err = pageOf(size, token); err != nil {
		return "", nil, err
	}
	if release, err = s.slotted(ctx, s.listings); err != nil {
		return "", nil, err
	}
	return after, release, nil
}

// slotted begins a long read's leader half (a listing, a journal read): one of slots for a
// call another node forwarded here (one taken here holds its slot from its public handler),
// then a read barrier, so that what is read next is current. The caller calls release.
func (s *core) slotted(ctx context.Context, slots listingSlots) (release func(), err error) {
	release = func() {}
	if forward.Arrived(ctx) {
		if release, err = slots.acquire(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.barrier(ctx); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// publicServices are the services of the client port whose calls may run on the leader.
var publicServices = []grpc.ServiceDesc{idnodev1.IdService_ServiceDesc, idnodev1.ClusterService_ServiceDesc, idnodev1.SeriesService_ServiceDesc}

// leaderMethod is a name under which the internal server runs a public call's leader half.
type leaderMethod struct {
	// public is the public method the name stands for: /idnode.v1.SeriesService/Void.
	public string
	// old says the name is the Leader service's, which a cluster version retires (relay.go).
	old bool
}

// leaderMethods maps each name under which the internal server runs a public call's leader
// half to what it stands for: its leader name (relay.go), and the Leader RPC of the same name.
var leaderMethods = func() map[string]leaderMethod {
	m := map[string]leaderMethod{}
	for _, pm := range publicMethods() {
		public := pm.fullName()
		m[leaderName(public)] = leaderMethod{public: public}
		m["/"+forwardv1.Leader_ServiceDesc.ServiceName+"/"+pm.name] = leaderMethod{public: public, old: true}
	}
	return m
}()

// publicMethod is one call, unary or streaming, of a public service.
type publicMethod struct {
	service string // idnode.v1.SeriesService
	name    string // Void
}

// fullName is the method as gRPC names it: /idnode.v1.SeriesService/Void.
func (m publicMethod) fullName() string { return "/" + m.service + "/" + m.name }

// publicMethods lists every call of publicServices, from their generated descriptors, so that
// what is built from the list covers a call added later without being told of it.
func publicMethods() []publicMethod {
	var ms []publicMethod
	for _, svc := range publicServices {
		for _, md := range svc.Methods {
			ms = append(ms, publicMethod{svc.ServiceName, md.MethodName})
		}
		for _, sd := range svc.Streams {
			ms = append(ms, publicMethod{svc.ServiceName, sd.StreamName})
		}
	}
	return ms
}

// leaderAccess is the internal server's access check. It lets a call of a leader half through
// when it came from a node of this cluster (it carried the cluster secret; that node checked
// its caller). A cluster before its first leader set a secret cannot tell a node from a client
// on the Raft port: there the call is checked as the public call it stands for, with the
// caller's authorization the hop passed on. A call through the Leader service is refused once
// the cluster version has retired it.
//
// The Leader service stays registered on every build, and the version is read at each call
// rather than when the internal server starts: a node registers its services before it has
// replayed the log, so at that moment it does not know the finalised version, and the version
// changes while the node runs (a finalisation, a downgrade). A node that has not applied the
// finalisation yet serves the old call as before, which is harmless: it runs the same leader
// half the name would. A downgrade brings the Leader service back without a restart.
func (s *interceptors) leaderAccess(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	m, ok := leaderMethods[info.FullMethod]
	switch {
	case !ok:
		return handler(ctx, req)
	case m.old && s.olderLeaders.retired():
		return nil, errLeaderServiceRetired
	case forward.FromNode(ctx):
		return handler(ctx, req)
	}
	return s.authorize(ctx, req, &grpc.UnaryServerInfo{Server: info.Server, FullMethod: m.public}, handler)
}

// leaderAccessStream is leaderAccess for the streaming calls (Backup, Restore, Journal).
func (s *interceptors) leaderAccessStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	m, ok := leaderMethods[info.FullMethod]
	switch {
	case !ok:
		return handler(srv, ss)
	case m.old && s.olderLeaders.retired():
		return errLeaderServiceRetired
	case forward.FromNode(ss.Context()):
		return handler(srv, ss)
	}
	return s.authorizeStream(srv, ss, &grpc.StreamServerInfo{FullMethod: m.public, IsClientStream: info.IsClientStream, IsServerStream: info.IsServerStream}, handler)
}
