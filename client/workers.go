package client

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Workers makes the plain calls of worker leases, which NumericGenerator makes for its own
// worker (docs/numeric-ids.md). Each goes to the leader and is retried on another node like
// the others. Get one from Client.Workers; it shares the Client's connections.
type Workers struct{ fo *failover }

// Workers is the worker leases' calls, in the Client's database.
func (c *Client) Workers() Workers { return Workers{&c.failover} }

// Acquire leases a worker ID of the Client's database. Without a request_id the Client
// makes one, so a retry after a lost answer gets the same lease rather than a second worker.
func (w Workers) Acquire(ctx context.Context, req *idnodev1.AcquireWorkerRequest) (*idnodev1.WorkerLease, error) {
	if req.GetRequestId() == "" {
		req.RequestId = newRequestID()
	}
	return unaryCall(ctx, w.fo.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.AcquireWorker, req)
}

// Renew extends a lease; FAILED_PRECONDITION (ErrWorkerLeaseLost's code) means the
// worker went to another holder: stop minting with it.
func (w Workers) Renew(ctx context.Context, req *idnodev1.RenewWorkerRequest) (*idnodev1.WorkerLease, error) {
	return unaryCall(ctx, w.fo.callLeader, idsOf, idnodev1.IdServiceClient.RenewWorker, req)
}

// Release ends a lease now, so its worker may go to the next holder.
func (w Workers) Release(ctx context.Context, req *idnodev1.ReleaseWorkerRequest) error {
	return w.fo.callLeader(ctx, func(ctx context.Context, n *node) error {
		_, err := n.ids.ReleaseWorker(ctx, req)
		return err
	})
}

// List returns a page of the database's workers (every one ever leased), read
// linearizably.
func (w Workers) List(ctx context.Context, req *idnodev1.ListWorkersRequest) (*idnodev1.ListWorkersResponse, error) {
	return unaryCall(ctx, w.fo.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.ListWorkers, req)
}
