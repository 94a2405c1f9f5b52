package server

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/etag"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
)

// codeOf maps every error the layers below return to the gRPC code DESIGN §4 gives it, so no
// expected condition reaches a client as UNKNOWN.
func codeOf(err error) codes.Code {
	var invalid *docid.ValidationError
	switch {
	case errors.As(err, &invalid),
		errors.Is(err, fsm.ErrInvalidCount), errors.Is(err, fsm.ErrNegativeValue),
		errors.Is(err, fsm.ErrRequestIDReused):
		return codes.InvalidArgument
	case errors.Is(err, fsm.ErrCounterOverflow), errors.Is(err, etag.ErrExhausted):
		return codes.OutOfRange
	case errors.Is(err, fsm.ErrRangeReturned), errors.Is(err, fsm.ErrRestoreTagInUse), errors.Is(err, fsm.ErrSeparatorDiffers):
		return codes.FailedPrecondition
	case errors.Is(err, fsm.ErrTagInUse), errors.Is(err, fsm.ErrTagRetired), errors.Is(err, fsm.ErrNodeIDInUse),
		errors.Is(err, fsm.ErrTagReincarnated), errors.Is(err, fsm.ErrAddressInUse):
		return codes.AlreadyExists
	case errors.Is(err, fsm.ErrNoFreeTag):
		return codes.ResourceExhausted
	case errors.Is(err, cluster.ErrNotLeader), errors.Is(err, cluster.ErrLeadershipLost),
		errors.Is(err, cluster.ErrNoQuorum), errors.Is(err, cluster.ErrShutdown),
		errors.Is(err, identity.ErrClosed), errors.Is(err, etag.ErrClosed),
		errors.Is(err, errNoLeader), errors.Is(err, errLeaderChanged):
		return codes.Unavailable
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	}
	return codes.Internal
}

// toStatus turns err into a gRPC status error; one that already is one passes through.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codeOf(err), err.Error())
}

// noQuorum explains an UNAVAILABLE from the Raft side in the words DESIGN §3 asks for.
func (s *Server) noQuorum(err error) error {
	voters := s.voterCount()
	return status.Error(codes.Unavailable, fmt.Sprintf(
		"no quorum: identity generation needs a majority of the cluster (%d of %d nodes); this node cannot reach one (%v). Retry, or use another node",
		voters/2+1, voters, err))
}

// raftError reports a failed Raft-backed call: UNAVAILABLE ones with the no-quorum message.
func (s *Server) raftError(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	if codeOf(err) == codes.Unavailable {
		return s.noQuorum(err)
	}
	return toStatus(err)
}
