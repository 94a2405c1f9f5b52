package server

import (
	"context"
	"log/slog"

	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
)

// propose proposes req as op through Raft on this node (the leader) and returns the FSM's
// typed answer; errors come back as gRPC statuses, through the one table (raftError). A
// command the finalised cluster version does not include is refused before Raft
// (versionAllows): a member on an older build would halt on it.
func propose[Req proto.Message, Resp any](ctx context.Context, s *core, op fsm.Op[Req, Resp], req Req) (Resp, error) {
	var answer Resp
	if err := s.versionAllows(op.Type); err != nil {
		return answer, err
	}
	answer, err := fsm.Propose(ctx, s.node, op, req)
	if err != nil {
		return answer, s.raftError(err)
	}
	return answer, nil
}

// committed proposes cmd, as propose does, and logs msg with args at level once it is
// committed: the changes an operator reads back in the log (a database created or deleted, a
// key deleted, a worker released).
func committed[Req proto.Message, Resp any](ctx context.Context, s *core, op fsm.Op[Req, Resp], cmd Req, level slog.Level, msg string, args ...any) error {
	if _, err := propose(ctx, s, op, cmd); err != nil {
		return err
	}
	s.log.Log(ctx, level, msg, args...)
	return nil
}

// afterBarrier answers what read makes of the FSM once a read barrier has made it current, so
// a partitioned old leader never answers from stale state.
func afterBarrier[T any](s *core, ctx context.Context, read func(*fsm.FSM) T) (T, error) {
	if err := s.barrier(ctx); err != nil {
		var none T
		return none, err
	}
	return read(s.node.FSM()), nil
}
