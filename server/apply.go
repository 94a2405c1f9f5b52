package server

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
)

// propose proposes req as op through Raft on this node (the leader) and returns the FSM's
// typed answer; errors come back as gRPC statuses, through the one table (raftError).
func propose[Req proto.Message, Resp any](ctx context.Context, s *Server, op fsm.Op[Req, Resp], req Req) (Resp, error) {
	answer, err := fsm.Propose(ctx, s.node, op, req)
	if err != nil {
		return answer, s.raftError(err)
	}
	return answer, nil
}
