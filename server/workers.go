package server

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Worker leases: a holder mints numeric IDs in-process under a worker ID leased
// through Raft (fsm/workers.go). The leader's clock dates every lease call, never the caller's.

// AcquireWorker leases a worker ID of the request's database to a client. A holder name
// beginning with fsm.NodeHolderPrefix is refused: it is the nodes' own minters' (nodeLeaser,
// which calls acquireWorker, never this handler), and in a database whose numeric IDs are
// opaque the FSM leases only to those (a client mints without the key). Every client call,
// gRPC or HTTP, arrives here; a relayed one reaches the leader's half only from a node of the
// cluster, on the internal port (relay.go), after this check. A client's lease in an
// opaque-numeric database is refused here too (opaqueForms.refuseClientLease), to say so
// before a trip to the leader; the FSM's refusal is the one that decides.
func (s *idService) AcquireWorker(ctx context.Context, req *idnodev1.AcquireWorkerRequest) (*idnodev1.WorkerLease, error) {
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	if strings.HasPrefix(req.GetHolder(), fsm.NodeHolderPrefix) {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidInput,
			fmt.Sprintf("holder %q begins with %q, which is reserved for the nodes' own minters of numeric IDs: name the holder otherwise", req.GetHolder(), fsm.NodeHolderPrefix))
	}
	if err := s.forms().refuseClientLease(ctx, req.GetDatabase()); err != nil {
		return nil, err
	}
	return s.acquireWorker(ctx, req)
}

// acquireWorker leases a worker ID through the leader, for a client (AcquireWorker) or for
// this node's own minter (nodeLeaser).
func (s *idService) acquireWorker(ctx context.Context, req *idnodev1.AcquireWorkerRequest) (*idnodev1.WorkerLease, error) {
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().AcquireWorker, viaIDs(s.core, idnodev1.IdServiceClient.AcquireWorker, forwardv1.LeaderClient.AcquireWorker))
}

// AcquireWorker runs on the leader. The FSM refuses a lease in an opaque-numeric database to
// a holder that is not a registered node's minter (fsm.ErrOpaqueClientLease), from the
// replicated state, so no race between a check and the lease decides.
func (l idLeader) AcquireWorker(ctx context.Context, req *idnodev1.AcquireWorkerRequest) (*idnodev1.WorkerLease, error) {
	wl, err := propose(ctx, l.s.core, fsm.ProposeAcquireWorker, &raftv1.AcquireWorker{Database: req.GetDatabase(), Holder: req.GetHolder(),
		WorkerBits: req.GetWorkerBits(), LeaseMs: req.GetLeaseMs(), RequestId: req.GetRequestId(), ProposedAtMs: l.s.cfg.Now().UnixMilli()})
	if err != nil {
		return nil, err
	}
	l.s.log.Info("worker leased", "database", wl.Database, "worker", wl.Worker, "epoch", wl.Epoch, "holder", wl.Holder)
	return workerLeaseOf(wl), nil
}

// RenewWorker extends a worker lease the caller holds (worker and epoch).
func (s *idService) RenewWorker(ctx context.Context, req *idnodev1.RenewWorkerRequest) (*idnodev1.WorkerLease, error) {
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().RenewWorker, viaIDs(s.core, idnodev1.IdServiceClient.RenewWorker, forwardv1.LeaderClient.RenewWorker))
}

func (l idLeader) RenewWorker(ctx context.Context, req *idnodev1.RenewWorkerRequest) (*idnodev1.WorkerLease, error) {
	wl, err := propose(ctx, l.s.core, fsm.ProposeRenewWorker, &raftv1.RenewWorker{Database: req.GetDatabase(), Worker: req.GetWorker(),
		Epoch: req.GetEpoch(), LeaseMs: req.GetLeaseMs(), ProposedAtMs: l.s.cfg.Now().UnixMilli()})
	if err != nil {
		return nil, err
	}
	return workerLeaseOf(wl), nil
}

// ReleaseWorker ends a worker lease now.
func (s *idService) ReleaseWorker(ctx context.Context, req *idnodev1.ReleaseWorkerRequest) (*idnodev1.ReleaseWorkerResponse, error) {
	if err := s.arriving(ctx, &req.Database, nil); err != nil {
		return nil, err
	}
	return forward.Call(s.fwd, ctx, req, forward.Unary, s.leader().ReleaseWorker, viaIDs(s.core, idnodev1.IdServiceClient.ReleaseWorker, forwardv1.LeaderClient.ReleaseWorker))
}

func (l idLeader) ReleaseWorker(ctx context.Context, req *idnodev1.ReleaseWorkerRequest) (*idnodev1.ReleaseWorkerResponse, error) {
	if err := committed(ctx, l.s.core, fsm.ProposeReleaseWorker, &raftv1.ReleaseWorker{Database: req.GetDatabase(), Worker: req.GetWorker(),
		Epoch: req.GetEpoch(), ProposedAtMs: l.s.cfg.Now().UnixMilli()},
		slog.LevelInfo, "worker released", "database", req.GetDatabase(), "worker", req.GetWorker(), "epoch", req.GetEpoch()); err != nil {
		return nil, err
	}
	return &idnodev1.ReleaseWorkerResponse{}, nil
}

// ListWorkers pages through the database's workers, linearizably.
func (s *idService) ListWorkers(ctx context.Context, req *idnodev1.ListWorkersRequest) (*idnodev1.ListWorkersResponse, error) {
	return listed(s.core, ctx, req, func(size int32, db string) { req.PageSize, req.Database = size, db },
		s.leader().ListWorkers, viaIDs(s.core, idnodev1.IdServiceClient.ListWorkers, forwardv1.LeaderClient.ListWorkers))
}

func (l idLeader) ListWorkers(ctx context.Context, req *idnodev1.ListWorkersRequest) (*idnodev1.ListWorkersResponse, error) {
	page, next, err := leaderPage(l.s.core, ctx, req,
		func(after string, n int) ([]fsm.WorkerLease, bool, error) {
			from, err := workerAfter(after)
			if err != nil {
				return nil, false, err
			}
			return l.s.node.FSM().WorkersFrom(req.GetDatabase(), from, n)
		},
		workerLeaseOf,
		func(wl fsm.WorkerLease) string { return strconv.FormatUint(uint64(wl.Worker), 10) })
	if err != nil {
		return nil, err
	}
	return &idnodev1.ListWorkersResponse{Workers: page, NextPageToken: next}, nil
}

// workerAfter is the first worker ID after a ListWorkers page key (the last worker ID listed,
// in decimal; "" before the first page).
func workerAfter(key string) (uint32, error) {
	if key == "" {
		return 0, nil
	}
	last, err := strconv.ParseUint(key, 10, 32)
	if err != nil || last == math.MaxUint32 {
		return 0, reason.Error(codes.InvalidArgument, reason.InvalidInput, fmt.Sprintf("page token %q is not one ListWorkers gave", key))
	}
	return uint32(last + 1), nil
}

func workerLeaseOf(wl fsm.WorkerLease) *idnodev1.WorkerLease {
	return &idnodev1.WorkerLease{Database: wl.Database, Worker: wl.Worker, Epoch: wl.Epoch, Holder: wl.Holder,
		MinMs: wl.MinMs, MaxMs: wl.MaxMs, ExpiresAtMs: wl.ExpiresAtMs}
}
