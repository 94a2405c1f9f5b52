package server

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/durablefile"
	"github.com/idnode/idnode/internal/etag"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/hilogrant"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/series"
)

// refusal is the gRPC code and reason of a kind of error.
type refusal struct {
	code   codes.Code
	reason string // "" means the code's name (reason.Attach)
}

// refusals maps every error the layers below return to its gRPC code (INVALID_ARGUMENT for bad
// input, UNAVAILABLE for no leader or no quorum, and so on) and the reason clients branch on,
// so no expected condition reaches a client as UNKNOWN. The first entry an error matches wins.
var refusals = []struct {
	errs []error
	refusal
}{
	// A node that cannot write its own storage is UNAVAILABLE: clients fail over to another.
	// Every store is here: the Raft log, the files replaced whole (etag watermark, HiLo pools,
	// manifest, node state) and the series journal.
	{[]error{cluster.ErrStorageFull, syscall.ENOSPC, syscall.EDQUOT}, refusal{codes.Unavailable, reason.StorageFull}},
	{[]error{cluster.ErrStorageFailed, etag.ErrPersist, durablefile.ErrWrite, fsm.ErrJournalWrite}, refusal{codes.Unavailable, reason.StorageFailed}},
	{[]error{fsm.ErrRequestIDReused}, refusal{codes.InvalidArgument, reason.RequestIDReused}},
	{[]error{fsm.ErrInvalidCount, fsm.ErrNegativeValue, fsm.ErrBadReservation}, refusal{codes.InvalidArgument, reason.InvalidInput}},
	{[]error{fsm.ErrNotRegistered}, refusal{codes.FailedPrecondition, reason.NotRegistered}},
	{[]error{fsm.ErrCounterOverflow, etag.ErrExhausted}, refusal{codes.OutOfRange, reason.CounterOverflow}},
	{[]error{fsm.ErrRangeReturned}, refusal{codes.FailedPrecondition, reason.RangeReturned}},
	{[]error{fsm.ErrLastMaxOutOfRange}, refusal{codes.OutOfRange, ""}},
	{[]error{hilogrant.ErrNoGrantID}, refusal{codes.FailedPrecondition, ""}},
	{[]error{hilogrant.ErrLastAboveEnd, hilogrant.ErrNotGrantedRange, hilogrant.ErrIDTooLong}, refusal{codes.InvalidArgument, reason.InvalidInput}},
	{[]error{fsm.ErrAlreadyClaimed}, refusal{codes.AlreadyExists, reason.Claimed}},
	{[]error{fsm.ErrNotOwner}, refusal{codes.FailedPrecondition, ""}},
	{[]error{fsm.ErrVersionUnsupported, fsm.ErrDowngradeTooLate}, refusal{codes.FailedPrecondition, ""}},
	{[]error{fsm.ErrSeparatorDiffers}, refusal{codes.FailedPrecondition, reason.SeparatorMismatch}},
	{[]error{fsm.ErrFoldCollision, fsm.ErrUnknownFold}, refusal{codes.FailedPrecondition, ""}},
	{[]error{fsm.ErrRestoreTagInUse}, refusal{codes.FailedPrecondition, reason.InUse}},
	{[]error{fsm.ErrTagInUse, fsm.ErrTagRetired, fsm.ErrNodeIDInUse, fsm.ErrTagReincarnated, fsm.ErrAddressInUse},
		refusal{codes.AlreadyExists, reason.InUse}},
	{[]error{fsm.ErrNoFreeTag, fsm.ErrLimitReached}, refusal{codes.ResourceExhausted, ""}},
	{[]error{fsm.ErrInvalidWorkerLease}, refusal{codes.InvalidArgument, reason.InvalidInput}},
	{[]error{fsm.ErrWorkersExhausted}, refusal{codes.ResourceExhausted, ""}},
	{[]error{fsm.ErrWorkerLeaseLost, fsm.ErrWorkerBitsDiffer}, refusal{codes.FailedPrecondition, ""}},
	{[]error{fsm.ErrDatabaseNotFound, fsm.ErrKeyNotFound}, refusal{codes.NotFound, ""}},
	{[]error{fsm.ErrDatabaseExists, fsm.ErrKeyExists}, refusal{codes.AlreadyExists, ""}},
	{[]error{fsm.ErrInvalidKey}, refusal{codes.InvalidArgument, reason.InvalidInput}},
	{[]error{fsm.ErrInvalidVersion}, refusal{codes.InvalidArgument, reason.InvalidInput}},
	{[]error{fsm.ErrInvalidOpaque}, refusal{codes.InvalidArgument, reason.InvalidInput}},
	{[]error{fsm.ErrOpaqueWouldCollide, fsm.ErrOpaqueKeyDiffers}, refusal{codes.FailedPrecondition, ""}},
	{[]error{fsm.ErrOpaqueClientLease}, refusal{codes.FailedPrecondition, reason.OpaqueCollection}},
	{[]error{fsm.ErrDatabaseNotEmpty, fsm.ErrDefaultDatabase}, refusal{codes.FailedPrecondition, ""}},
	{[]error{series.ErrRequestIDReused}, refusal{codes.InvalidArgument, reason.RequestIDReused}},
	{[]error{series.ErrBadFormat, series.ErrBadInput}, refusal{codes.InvalidArgument, reason.InvalidInput}},
	{[]error{series.ErrNoSeries}, refusal{codes.NotFound, ""}},
	{[]error{series.ErrSeriesExists}, refusal{codes.AlreadyExists, ""}},
	{[]error{series.ErrTooManySeries}, refusal{codes.ResourceExhausted, ""}},
	{[]error{series.ErrNotIssued, series.ErrAlreadyVoided, series.ErrGapless, series.ErrSeriesDiverged}, refusal{codes.FailedPrecondition, ""}},
	{[]error{series.ErrSeriesRestoring}, refusal{codes.FailedPrecondition, reason.SeriesRestoring}},
	{[]error{series.ErrNumberOverflow}, refusal{codes.OutOfRange, reason.CounterOverflow}},
	{[]error{series.ErrCorrupt}, refusal{codes.DataLoss, ""}},
	{[]error{cluster.ErrLeadershipLost, forward.ErrNoAnswer}, refusal{codes.Unavailable, reason.OutcomeUnknown}},
	{[]error{cluster.ErrShutdown, identity.ErrClosed, etag.ErrClosed, series.ErrClosed, forward.ErrClosed}, refusal{codes.Unavailable, reason.ShuttingDown}},
	{[]error{cluster.ErrNotLeader, cluster.ErrHandingOver, cluster.ErrNoQuorum, forward.ErrNoLeader, forward.ErrUnreached, forward.ErrLeaderChanged, forward.ErrBehind}, refusal{codes.Unavailable, reason.NoQuorum}},
	{[]error{context.DeadlineExceeded}, refusal{codes.DeadlineExceeded, ""}},
	{[]error{context.Canceled}, refusal{codes.Canceled, ""}},
}

// refusalOf classifies err by the refusals table; anything else is INTERNAL.
func refusalOf(err error) refusal {
	var invalid *docid.ValidationError
	if errors.As(err, &invalid) {
		return refusal{codes.InvalidArgument, reason.InvalidInput}
	}
	for _, r := range refusals {
		for _, e := range r.errs {
			if errors.Is(err, e) {
				return r.refusal
			}
		}
	}
	return refusal{codes.Internal, ""}
}

// codeOf is err's gRPC code.
func codeOf(err error) codes.Code { return refusalOf(err).code }

// toStatus turns err into a gRPC status error with its reason; one that already is a status
// passes through (the reason interceptor gives it one if it has none).
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	r := refusalOf(err)
	return reason.Error(r.code, r.reason, err.Error())
}

// withReason is the outermost interceptor of both servers: every refusal leaves with an
// ErrorInfo, the code's name when nothing more specific was attached where it was made.
func withReason(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		err = withReasonErr(err)
	}
	return resp, err
}

// withReasonErr is err with a reason attached (withReason's step).
func withReasonErr(err error) error { return reason.Attach(status.Convert(err), "").Err() }

func withReasonStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := handler(srv, ss); err != nil {
		return withReasonErr(err)
	}
	return nil
}

// noQuorum explains an UNAVAILABLE from the Raft side in words an operator can act on: that the
// call needs a majority, and how many nodes that is. Its reason tells apart an outcome that is
// unknown (leadership lost in flight) and a node that is stopping from plain no quorum. A node
// that cannot write its Raft log says that instead: it is why there is no leader here, and what
// the operator must fix.
func (s *core) noQuorum(err error) error {
	if fault := s.node.StorageFault(); fault != nil {
		return toStatus(fault)
	}
	return noQuorumOf(s.voterCount(), err)
}

// noQuorumOf is noQuorum in a cluster of voters.
func noQuorumOf(voters int, err error) error {
	r := refusalOf(err).reason
	if r != reason.OutcomeUnknown && r != reason.ShuttingDown {
		r = reason.NoQuorum
	}
	return reason.Error(codes.Unavailable, r, fmt.Sprintf(
		"no quorum: identities, HiLo ranges, series numbers and every change to the cluster need a majority of the cluster (%d of %d nodes); this node cannot reach one (%v). Retry, or use another node",
		voters/2+1, voters, err))
}

// raftError reports a failed Raft-backed call: UNAVAILABLE ones with the no-quorum message.
func (s *core) raftError(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	if codeOf(err) == codes.Unavailable {
		return s.noQuorum(err)
	}
	return toStatus(err)
}
