package client

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// LeaderHeader is the response header in which a node names the gRPC address of the cluster's
// leader (as the leader registered it). The client sends the calls that need the leader there
// first, saving the hop a follower would make.
const LeaderHeader = idnodev1.LeaderHeader

// leaderHintDistrust is how long after the client saw a node fail by itself (see nodeFailed) it
// believes that over a hint naming the node as leader. The other nodes name a leader that died
// until they notice and elect another, within about a second on a LAN and a few with long
// round trips; a follower's answer in that time would send the next call to the dead node
// first again. A leader that only timed out once is named again after it, so the calls that
// need it go through a follower's hop at most this long.
const leaderHintDistrust = 5 * time.Second

// learnLeader is a unary interceptor on every node's connection: it reads LeaderHeader from
// each answer and remembers which of the client's nodes is the leader. An address that is none
// of the client's (a node behind another name, say in Docker) teaches nothing, and neither does
// one the client saw fail itself a moment ago (see nodeFailedAt).
func (fo *failover) learnLeader(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var header metadata.MD
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Header(&header))...)
	if addrs := header.Get(LeaderHeader); len(addrs) == 1 {
		for i, n := range fo.nodes {
			if n.addr == addrs[0] {
				if !fo.failedLately(int64(i)) {
					fo.leader.Store(int64(i) + 1)
				}
				break
			}
		}
	}
	return err
}

// nodeFailedAt notes that node i failed an attempt by itself (nodeFailed): when it is the
// leader the client knows, it knows none now, and hints naming it are not believed for
// leaderHintDistrust (a follower names the old leader until it notices). answeredBy ends that.
func (fo *failover) nodeFailedAt(i int64) {
	fo.failedAt[i].Store(fo.now().UnixNano())
	fo.leader.CompareAndSwap(i+1, 0)
}

// answeredBy notes that node i answered: its word, and hints naming it, count again.
func (fo *failover) answeredBy(i int64) {
	if fo.failedAt[i].Load() != 0 {
		fo.failedAt[i].Store(0)
	}
}

// failedLately reports whether node i failed by itself within leaderHintDistrust.
func (fo *failover) failedLately(i int64) bool {
	at := fo.failedAt[i].Load()
	return at != 0 && fo.now().UnixNano()-at < int64(leaderHintDistrust)
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
