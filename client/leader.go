package client

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// LeaderHeader is the response header in which a node names the gRPC address of the cluster's
// leader (as the leader registered it). The client sends the calls that need the leader there
// first, saving the hop a follower would make.
const LeaderHeader = idnodev1.LeaderHeader

// learnLeader is a unary interceptor on every node's connection: it reads LeaderHeader from
// each answer and remembers which of the client's nodes is the leader. An address that is none
// of the client's (a node behind another name, say in Docker) teaches nothing.
func (fo *failover) learnLeader(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var header metadata.MD
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Header(&header))...)
	if addrs := header.Get(LeaderHeader); len(addrs) == 1 {
		for i, n := range fo.nodes {
			if n.addr == addrs[0] {
				fo.leader.Store(int64(i) + 1)
				break
			}
		}
	}
	return err
}

// callLeader is call for the calls the leader serves (identities, HiLo through the cluster,
// claims, seeds): it starts at the node last named as leader, when there is one, and goes on
// to the others if that fails, so a leader change costs one failed attempt, not a wrong answer.
// The leader may be in any region; while none is known, a client with a region starts in its own.
func (fo *failover) callLeader(ctx context.Context, attempt func(ctx context.Context, n *node) error) error {
	if l := fo.leader.Load(); l > 0 {
		return fo.callFrom(ctx, l-1, attempt)
	}
	return fo.call(ctx, attempt)
}

// callLeaderRepeatable is callLeader for a call that is safe to repeat (see repeatable).
func (fo *failover) callLeaderRepeatable(ctx context.Context, attempt func(ctx context.Context, n *node) error) error {
	return fo.callLeader(ctx, repeatable(attempt))
}
