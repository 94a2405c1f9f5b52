package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
)

// echoService is a public service that no file of the server names: it stands for an RPC
// added after the relay was written. Its descriptor and client are what protoc-gen-go-grpc
// writes for
//
//	service EchoService { rpc Echo(google.protobuf.StringValue) returns (google.protobuf.StringValue); }
//
// written out here so that the test needs no generated package of its own.
type echoService interface {
	Echo(context.Context, *wrapperspb.StringValue) (*wrapperspb.StringValue, error)
}

const echoMethod = "/idnode.test.v1.EchoService/Echo"

var echoServiceDesc = grpc.ServiceDesc{
	ServiceName: "idnode.test.v1.EchoService",
	HandlerType: (*echoService)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Echo",
		Handler: func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
			in := new(wrapperspb.StringValue)
			if err := dec(in); err != nil {
				return nil, err
			}
			if interceptor == nil {
				return srv.(echoService).Echo(ctx, in)
			}
			info := &grpc.UnaryServerInfo{Server: srv, FullMethod: echoMethod}
			return interceptor(ctx, in, info, func(ctx context.Context, req any) (any, error) {
				return srv.(echoService).Echo(ctx, req.(*wrapperspb.StringValue))
			})
		},
	}},
}

type echoClient struct{ cc grpc.ClientConnInterface }

func newEchoClient(cc grpc.ClientConnInterface) echoClient { return echoClient{cc} }

func (c echoClient) Echo(ctx context.Context, in *wrapperspb.StringValue, opts ...grpc.CallOption) (*wrapperspb.StringValue, error) {
	out := new(wrapperspb.StringValue)
	if err := c.cc.Invoke(ctx, echoMethod, in, out, opts...); err != nil {
		return nil, err
	}
	return out, nil
}

// echoLeader is the leader half of Echo: it answers with the node it ran on and what the hop
// brought along, the caller's deadline and authorization.
type echoLeader struct{ tag string }

func (l echoLeader) Echo(ctx context.Context, in *wrapperspb.StringValue) (*wrapperspb.StringValue, error) {
	out := in.GetValue() + " ran on " + l.tag
	if _, ok := ctx.Deadline(); ok {
		out += " within the caller's deadline"
	}
	if md, _ := metadata.FromIncomingContext(ctx); len(md.Get(authorizationHeader)) > 0 {
		out += " for " + md.Get(authorizationHeader)[0]
	}
	return wrapperspb.String(out), nil
}

// A follower relays a public call that forward.proto, relay.go and the Leader service have
// never heard of: the leader serves its leader half under the leader name, the follower calls
// it with the call's own generated client, and nothing else names the call. This is all a new
// public RPC needs of the relay, whatever the cluster version.
func TestAFollowerRelaysACallNoRelayCodeNames(t *testing.T) {
	t.Parallel()
	leader := New(Config{Tag: "A"}, &fakeCluster{leader: true, fsm: stateAt(t, fsm.CurrentVersion)}, nil)
	t.Cleanup(leader.Close)
	gi := internalServer(leader)
	registerLeaderHalves(gi, echoServiceDesc, echoLeader{tag: "A"})
	follower := New(Config{Tag: "B", Dial: serve(t, gi)}, otherMember{&fakeCluster{fsm: stateAt(t, fsm.CurrentVersion)}}, nil)
	t.Cleanup(follower.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(authorizationHeader, "Bearer k1"))
	here := func(context.Context, *wrapperspb.StringValue) (*wrapperspb.StringValue, error) {
		t.Fatal("the follower ran Echo's leader half itself")
		return nil, nil
	}
	got, err := forward.Call(follower.fwd, ctx, wrapperspb.String("hello"), forward.Unary, here,
		relayed(follower.core, newEchoClient, echoClient.Echo, nil))
	if want := "hello ran on A within the caller's deadline for Bearer k1"; err != nil || got.GetValue() != want {
		t.Fatalf("Echo through the follower = %q, %v; want %q", got.GetValue(), err, want)
	}
}
