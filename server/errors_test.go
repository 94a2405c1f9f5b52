package server

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/etag"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/series"
)

// Every sentinel error of the layers below leaves the server with the code the API promises for
// it and the reason clients branch on, also when wrapped. Errors that never reach a call
// (start-up refusals, a halted FSM, a corrupt file) are INTERNAL: seeing one is a bug.
func TestRefusalOfEverySentinel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		code   codes.Code
		reason string
	}{
		{&docid.ValidationError{Rule: "r", Value: "v"}, codes.InvalidArgument, reason.InvalidInput},
		{fsm.ErrInvalidCount, codes.InvalidArgument, reason.InvalidInput},
		{fsm.ErrNegativeValue, codes.InvalidArgument, reason.InvalidInput},
		{fsm.ErrRequestIDReused, codes.InvalidArgument, reason.RequestIDReused},
		{fsm.ErrCounterOverflow, codes.OutOfRange, reason.CounterOverflow},
		{etag.ErrExhausted, codes.OutOfRange, reason.CounterOverflow},
		{fsm.ErrRangeReturned, codes.FailedPrecondition, reason.RangeReturned},
		{series.ErrSeriesRestoring, codes.FailedPrecondition, reason.SeriesRestoring},
		{fsm.ErrSeparatorDiffers, codes.FailedPrecondition, reason.SeparatorMismatch},
		{fsm.ErrFoldCollision, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrUnknownFold, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrInvalidSecret, codes.Internal, "INTERNAL"}, // the leader proposes only good ones
		{fsm.ErrDatabaseNotFound, codes.NotFound, "NOT_FOUND"},
		{fsm.ErrKeyNotFound, codes.NotFound, "NOT_FOUND"},
		{fsm.ErrLimitReached, codes.ResourceExhausted, "RESOURCE_EXHAUSTED"},
		{fsm.ErrKeyExists, codes.AlreadyExists, "ALREADY_EXISTS"},
		{fsm.ErrInvalidKey, codes.InvalidArgument, reason.InvalidInput},
		{fsm.ErrDatabaseExists, codes.AlreadyExists, "ALREADY_EXISTS"},
		{fsm.ErrDatabaseNotEmpty, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrDefaultDatabase, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrRestoreTagInUse, codes.FailedPrecondition, reason.InUse},
		{fsm.ErrTagInUse, codes.AlreadyExists, reason.InUse},
		{fsm.ErrTagRetired, codes.AlreadyExists, reason.InUse},
		{fsm.ErrNodeIDInUse, codes.AlreadyExists, reason.InUse},
		{fsm.ErrTagReincarnated, codes.AlreadyExists, reason.InUse},
		{fsm.ErrAddressInUse, codes.AlreadyExists, reason.InUse},
		{fsm.ErrNoFreeTag, codes.ResourceExhausted, "RESOURCE_EXHAUSTED"},
		{fsm.ErrInvalidWorkerLease, codes.InvalidArgument, reason.InvalidInput},
		{fsm.ErrWorkersExhausted, codes.ResourceExhausted, "RESOURCE_EXHAUSTED"},
		{fsm.ErrWorkerLeaseLost, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrWorkerBitsDiffer, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrInvalidOpaque, codes.InvalidArgument, reason.InvalidInput},
		{fsm.ErrOpaqueWouldCollide, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrOpaqueKeyDiffers, codes.FailedPrecondition, "FAILED_PRECONDITION"},
		{fsm.ErrOpaqueClientLease, codes.FailedPrecondition, reason.OpaqueCollection},
		{cluster.ErrLeadershipLost, codes.Unavailable, reason.OutcomeUnknown},
		{cluster.ErrShutdown, codes.Unavailable, reason.ShuttingDown},
		{identity.ErrClosed, codes.Unavailable, reason.ShuttingDown},
		{etag.ErrClosed, codes.Unavailable, reason.ShuttingDown},
		{cluster.ErrNotLeader, codes.Unavailable, reason.NoQuorum},
		{cluster.ErrNoQuorum, codes.Unavailable, reason.NoQuorum},
		{forward.ErrNoLeader, codes.Unavailable, reason.NoQuorum},
		{forward.ErrLeaderChanged, codes.Unavailable, reason.NoQuorum},
		{forward.ErrUnreached, codes.Unavailable, reason.NoQuorum},
		{forward.ErrBehind, codes.Unavailable, reason.NoQuorum},
		{fmt.Errorf("%w: %w", forward.ErrNoAnswer, forward.ErrLeaderChanged), codes.Unavailable, reason.OutcomeUnknown},
		{forward.ErrSelf, codes.Internal, "INTERNAL"}, // served here, never a refusal
		{cluster.ErrStorageFull, codes.Unavailable, reason.StorageFull},
		{cluster.ErrStorageFailed, codes.Unavailable, reason.StorageFailed},
		{&cluster.StorageError{Path: "/data/raft/raft.db", Err: syscall.ENOSPC}, codes.Unavailable, reason.StorageFull},
		{&cluster.StorageError{Path: "/data/raft/raft.db", Err: syscall.EIO}, codes.Unavailable, reason.StorageFailed},
		{context.DeadlineExceeded, codes.DeadlineExceeded, "DEADLINE_EXCEEDED"},
		{context.Canceled, codes.Canceled, "CANCELED"},
		{fsm.ErrUnknownCommand, codes.Internal, "INTERNAL"},
		{fsm.ErrHalted, codes.Internal, "INTERNAL"},
		{fsm.ErrMalformedCommand, codes.Internal, "INTERNAL"},
		{etag.ErrPersist, codes.Unavailable, reason.StorageFailed},
		{fmt.Errorf("%w 100 to /data/etag: %w", etag.ErrPersist, syscall.ENOSPC), codes.Unavailable, reason.StorageFull},
		{etag.ErrCorrupt, codes.Internal, "INTERNAL"},
		{cluster.ErrClusterExists, codes.Internal, "INTERNAL"},
		{cluster.ErrDamagedStore, codes.Internal, "INTERNAL"},
		{cluster.ErrLogBehind, codes.Internal, "INTERNAL"},
		{cluster.ErrWrongMember, codes.Internal, "INTERNAL"},
		{cluster.ErrPeerMismatch, codes.Internal, "INTERNAL"},
		{etag.ErrInvalidCount, codes.Internal, "INTERNAL"},
		{etag.ErrVersion, codes.Internal, "INTERNAL"},
		{etag.ErrLocked, codes.Internal, "INTERNAL"},
	} {
		for _, err := range []error{tc.err, fmt.Errorf("while doing x: %w", tc.err)} {
			st := toStatus(err)
			if status.Code(st) != tc.code || reason.Of(st) != tc.reason {
				t.Errorf("%v: %v %q, want %v %q", err, status.Code(st), reason.Of(st), tc.code, tc.reason)
			}
		}
	}
}

// noQuorum keeps an unknown outcome and a stopping node apart from plain no quorum, and the
// reason interceptor gives every other refusal its code's name.
func TestNoQuorumReasonsAndTheFallback(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]string{
		cluster.ErrLeadershipLost:   reason.OutcomeUnknown,
		cluster.ErrShutdown:         reason.ShuttingDown,
		forward.ErrNoLeader:         reason.NoQuorum,
		forward.ErrNoAnswer:         reason.OutcomeUnknown,
		errors.New("dial: refused"): reason.NoQuorum,
	} {
		if got := reason.Of(noQuorumOf(3, err)); got != want {
			t.Errorf("noQuorum(%v) reason %q, want %q", err, got, want)
		}
	}
	_, err := withReason(context.Background(), nil, nil, func(context.Context, any) (any, error) {
		return nil, status.Error(codes.NotFound, "no node has tag Q")
	})
	if reason.Of(err) != "NOT_FOUND" || status.Code(err) != codes.NotFound {
		t.Errorf("fallback: %v, reason %q", err, reason.Of(err))
	}
}
