package client

import (
	"context"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Worker leases: NumericGenerator uses them; these are the plain calls. Each goes
// to the leader and is retried on another node like the others.

// AcquireWorker leases a worker ID of the Client's database. Without a request_id the Client
// makes one, so a retry after a lost answer gets the same lease rather than a second worker.
func (c *Client) AcquireWorker(ctx context.Context, req *idnodev1.AcquireWorkerRequest) (*idnodev1.WorkerLease, error) {
	if req.GetRequestId() == "" {
		req.RequestId = newRequestID()
	}
	return unaryCall(ctx, c.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.AcquireWorker, req)
}

// RenewWorker extends a lease; FAILED_PRECONDITION (ErrWorkerLeaseLost's code) means the
// worker went to another holder: stop minting with it.
func (c *Client) RenewWorker(ctx context.Context, req *idnodev1.RenewWorkerRequest) (*idnodev1.WorkerLease, error) {
	return unaryCall(ctx, c.callLeader, idsOf, idnodev1.IdServiceClient.RenewWorker, req)
}

// ReleaseWorker ends a lease now, so its worker may go to the next holder.
func (c *Client) ReleaseWorker(ctx context.Context, req *idnodev1.ReleaseWorkerRequest) error {
	return c.callLeader(ctx, func(ctx context.Context, n *node) error {
		_, err := n.ids.ReleaseWorker(ctx, req)
		return err
	})
}

// ListWorkers returns a page of the database's workers (every one ever leased), read
// linearizably.
func (c *Client) ListWorkers(ctx context.Context, req *idnodev1.ListWorkersRequest) (*idnodev1.ListWorkersResponse, error) {
	return unaryCall(ctx, c.callLeaderRepeatable, idsOf, idnodev1.IdServiceClient.ListWorkers, req)
}

// Explain says what an ID is (numeric: time, worker, sequence; a string: which strategy
// minted it). Any node answers. An opaque form of the Client's database (WithDatabase) is
// Opaque in the answer; its value is filled for an admin only, and a string under an opaque
// collection that is no form of the database is INVALID_ARGUMENT, reason NOT_OPAQUE_FORM.
func (c *Client) Explain(ctx context.Context, id string) (*idnodev1.ExplainResponse, error) {
	req := &idnodev1.ExplainRequest{Id: id, Database: c.opts.database}
	return unaryCall(ctx, c.callRepeatable, idsOf, idnodev1.IdServiceClient.Explain, req)
}
