package server

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// A follower relays a public call to the leader by the call's own name: the leader's internal
// server serves each public service's leader halves (idLeader, clusterLeader, seriesLeader)
// under the service's name with leaderPrefix before it, so a relayed call is the public
// method's name and the request's bytes, with the caller's deadline and the hop's proof that
// a node of this cluster sent it (package forward). A new public call needs nothing in
// forward.proto. The prefix keeps the public handlers off the internal server: a relayed call
// runs only its leader half, never the public handler's checks and branches a second time.
//
// Builds before this one serve the leader halves only as the Leader service of
// forward.proto, which mirrors every public call that existed then. A leader on such a build
// answers a call by the prefixed name Unimplemented ("unknown service") before anything runs,
// and the follower then sends it again through the Leader RPC of the same name. Every build
// serves the Leader service too, for followers on those builds. Both ways end when the cluster
// version reaches relayByNameVersion, which needs every member on a build that relays by name:
// from then on a follower relays by name only, and a leader refuses the Leader service
// (leaderAccess).

// relayByNameVersion is the cluster version that retires the Leader service: every member of
// a cluster finalised at it relays by name, so none needs the Leader service any longer.
const relayByNameVersion uint32 = 3

// leaderPrefix comes before a public service's name in the name its leader halves are served
// under: /idnode.leader.idnode.v1.SeriesService/Void runs seriesLeader.Void.
const leaderPrefix = "idnode.leader."

// registerLeaderHalves serves impl, the leader halves of the public service desc describes,
// on the internal server gi under the service's name with leaderPrefix.
func registerLeaderHalves(gi *grpc.Server, desc grpc.ServiceDesc, impl any) {
	desc.ServiceName = leaderPrefix + desc.ServiceName
	gi.RegisterService(&desc, impl)
}

// leaderConn calls the leader halves of the public methods a generated client calls on it:
// the same method under its leader name (leaderPrefix).
type leaderConn struct{ grpc.ClientConnInterface }

func (c leaderConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	return c.ClientConnInterface.Invoke(ctx, leaderName(method), args, reply, opts...)
}

func (c leaderConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	return c.ClientConnInterface.NewStream(ctx, desc, leaderName(method), opts...)
}

// leaderName is the name the leader half of the public method (a full name,
// /idnode.v1.SeriesService/Void) is served under.
func leaderName(method string) string { return "/" + leaderPrefix + strings.TrimPrefix(method, "/") }

// leaderHalves makes client, a generated client's constructor, one of the leader halves.
func leaderHalves[C any](client func(grpc.ClientConnInterface) C) func(grpc.ClientConnInterface) C {
	return func(cc grpc.ClientConnInterface) C { return client(leaderConn{cc}) }
}

// viaIDs relays an IdService call from node s: m is the public method
// (idnodev1.IdServiceClient.Claim), old its Leader RPC (forwardv1.LeaderClient.Claim), nil for
// a call newer than the Leader service.
func viaIDs[Req, Resp any](s *core, m func(idnodev1.IdServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error),
	old func(forwardv1.LeaderClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return relayed(s, idnodev1.NewIdServiceClient, m, old)
}

// viaCluster is viaIDs for a ClusterService call.
func viaCluster[Req, Resp any](s *core, m func(idnodev1.ClusterServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error),
	old func(forwardv1.LeaderClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return relayed(s, idnodev1.NewClusterServiceClient, m, old)
}

// viaSeries is viaIDs for a SeriesService call.
func viaSeries[Req, Resp any](s *core, m func(idnodev1.SeriesServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error),
	old func(forwardv1.LeaderClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return relayed(s, idnodev1.NewSeriesServiceClient, m, old)
}

// relayed makes the call m of the public service's client (made by client) on the leader's
// half of it, and through old when the leader's build does not serve it by that name and the
// cluster version of node s has not retired the Leader service.
func relayed[C, Req, Resp any](s *core, client func(grpc.ClientConnInterface) C, m func(C, context.Context, Req, ...grpc.CallOption) (Resp, error),
	old func(forwardv1.LeaderClient, context.Context, Req, ...grpc.CallOption) (Resp, error)) forward.Remote[Req, Resp] {
	return func(cc *grpc.ClientConn, ctx context.Context, req Req, opts ...grpc.CallOption) (Resp, error) {
		resp, err := m(leaderHalves(client)(cc), ctx, req, opts...)
		viaLeaderService, err := s.olderLeaders.answered(ctx, err)
		if old != nil && viaLeaderService {
			return old(forwardv1.NewLeaderClient(cc), ctx, req, opts...)
		}
		return resp, err
	}
}

// olderLeaders is how this node treats a leader on a build from before the relay by name:
// it sends the call again through the Leader service while the cluster version allows, and
// refuses once it has retired that service. It needs of the node only who leads and its
// replica's finalised cluster version, a health probe to ask the leader for its build, and
// the tag of a Raft ID to name the leader.
type olderLeaders struct {
	node  olderLeaderNode
	probe healthProbe
	tagOf func(id string) string
}

// olderLeaderNode is what olderLeaders needs of the node (Cluster).
type olderLeaderNode interface {
	Leader() (id, address string)
	FSM() *fsm.FSM
}

// answered reads the leader's answer err to a call by a leader name. An UNIMPLEMENTED one
// means the leader's build does not serve that name, so nothing ran: while this node's cluster
// version has not retired the Leader service, viaLeaderService says to send the call again
// through it. Once it has, every member should serve the name, and a leader that does not was
// put back on a build the cluster no longer supports: the answer is then a refusal that says
// so (refusal), not the leader's bare "unknown service" nor an unknown outcome
// (nothing ran). Any other err is returned as it is.
func (o olderLeaders) answered(ctx context.Context, err error) (viaLeaderService bool, _ error) {
	switch {
	case status.Code(err) != codes.Unimplemented:
		return false, err
	case !o.retired():
		return true, err
	}
	return false, forward.Answer(o.refusal(ctx, err))
}

// refusal is the refusal of a call the leader answered unimplemented (err) once the
// Leader service is retired: it names the leader, the build it runs and the cluster version it
// supports, as the leader's health answer says them (the cluster's record of a member's build
// is not rewritten by a build too old to be a member), and the version the cluster is at.
func (o olderLeaders) refusal(ctx context.Context, err error) error {
	id, addr := o.node.Leader()
	leader := &idnodev1.NodeStatus{RaftAddress: addr}
	o.probe.answers(ctx, leader)
	build := "a build from before the relay by name"
	if leader.GetVersion() != "" {
		build = "build " + leader.GetVersion()
	}
	tag := o.tagOf(id)
	return status.Errorf(codes.FailedPrecondition,
		"the leader %s runs %s, which supports cluster version %d and takes relayed calls only through the Leader service, "+
			"but the cluster is finalised at version %d, which retired that service: start %s on a build of version %d or newer, "+
			"or transfer leadership to another node (the leader answered: %s)",
		tag, build, max(leader.GetSupportedVersion(), 1), o.node.FSM().FinalisedVersion(), tag, relayByNameVersion,
		status.Convert(err).Message())
}

// retired reports whether this node's replica holds a cluster version that retired the
// Leader service.
func (o olderLeaders) retired() bool {
	return o.node.FSM().FinalisedVersion() >= relayByNameVersion
}

// errLeaderServiceRetired is a leader's answer to a call through the Leader service once the
// cluster version has retired it. Only a node on a build from before the relay by name sends
// one, and such a build cannot be a member of a cluster finalised at that version unless an
// operator put it back after the finalisation.
var errLeaderServiceRetired = status.Errorf(codes.FailedPrecondition,
	"the Leader service was retired at cluster version %d: the node that relayed this call runs an older build; upgrade it (idctl cluster version lists each member's build)",
	relayByNameVersion)

// ranWhereItArrived is what a leader half answers for a public call that has none: the call
// is answered on the node it reached (or batched to the leader by the Forward service), and
// is never relayed by its name.
func ranWhereItArrived(method string) error {
	return status.Errorf(codes.Unimplemented, "%s is answered where it arrives, not relayed to the leader", method)
}

// The public calls that have no leader half. Each leader type implements its whole public
// service, so a public call added without its leader half does not compile.

func (idLeader) Generate(context.Context, *idnodev1.GenerateRequest) (*idnodev1.GenerateResponse, error) {
	return nil, ranWhereItArrived("Generate")
}

func (idLeader) NextIdentity(context.Context, *idnodev1.NextIdentityRequest) (*idnodev1.NextIdentityResponse, error) {
	return nil, ranWhereItArrived("NextIdentity")
}

func (idLeader) Explain(context.Context, *idnodev1.ExplainRequest) (*idnodev1.ExplainResponse, error) {
	return nil, ranWhereItArrived("Explain")
}

func (clusterLeader) WhoAmI(context.Context, *idnodev1.WhoAmIRequest) (*idnodev1.WhoAmIResponse, error) {
	return nil, ranWhereItArrived("WhoAmI")
}

func (seriesLeader) Issue(context.Context, *idnodev1.IssueRequest) (*idnodev1.IssueResponse, error) {
	return nil, ranWhereItArrived("Issue")
}
