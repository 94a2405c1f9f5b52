package server

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
)

// apply proposes one command through Raft on this node (the leader) and returns the FSM's
// answer; errors come back as gRPC statuses.
func (s *Server) apply(ctx context.Context, t fsm.CommandType, m proto.Message) (any, error) {
	cmd, err := fsm.Encode(t, m)
	if err != nil {
		return nil, toStatus(err)
	}
	resp, err := s.node.Apply(ctx, cmd)
	if err != nil {
		return nil, s.raftError(err)
	}
	return resp, nil
}
