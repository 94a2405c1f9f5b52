package client

import (
	"context"
	"io"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// The calls that moved from Client to its parts (Admin, Series, Databases, Workers), kept for
// one release so that code written against them still builds. Each forwards to its new place;
// client/README.md says why the calls were split.

// Status reports the cluster as the answering node sees it.
//
// Deprecated: use c.Admin().Status.
func (c *Client) Status(ctx context.Context, consistent bool) (*idnodev1.StatusResponse, error) {
	return c.Admin().Status(ctx, consistent)
}

// WhoAmI is what the node makes of this client's credentials.
//
// Deprecated: use c.Admin().WhoAmI.
func (c *Client) WhoAmI(ctx context.Context) (*idnodev1.WhoAmIResponse, error) {
	return c.Admin().WhoAmI(ctx)
}

// AddNode registers a node and makes it a Raft member.
//
// Deprecated: use c.Admin().AddNode.
func (c *Client) AddNode(ctx context.Context, req *idnodev1.AddNodeRequest) (*idnodev1.AddNodeResponse, error) {
	return c.Admin().AddNode(ctx, req)
}

// RemoveNode takes the node with tag out of the cluster.
//
// Deprecated: use c.Admin().RemoveNode.
func (c *Client) RemoveNode(ctx context.Context, tag string) error {
	return c.Admin().RemoveNode(ctx, tag)
}

// TransferLeadership hands leadership to the node with tag.
//
// Deprecated: use c.Admin().TransferLeadership.
func (c *Client) TransferLeadership(ctx context.Context, tag string) (leader string, err error) {
	return c.Admin().TransferLeadership(ctx, tag)
}

// Backup writes a consistent backup of the cluster's replicated state to w.
//
// Deprecated: use c.Admin().Backup.
func (c *Client) Backup(ctx context.Context, w io.Writer) (BackupInfo, error) {
	return c.Admin().Backup(ctx, w)
}

// Restore raises the cluster's counters to at least those of the backup read from r.
//
// Deprecated: use c.Admin().Restore.
func (c *Client) Restore(ctx context.Context, r io.Reader, opts ...RestoreOption) (*idnodev1.RestoreResponse, error) {
	return c.Admin().Restore(ctx, r, opts...)
}

// ClusterVersion reports the cluster version from the leader.
//
// Deprecated: use c.Admin().ClusterVersion.
func (c *Client) ClusterVersion(ctx context.Context) (*idnodev1.ClusterVersionResponse, error) {
	return c.Admin().ClusterVersion(ctx)
}

// SetClusterVersion finalises a higher cluster version or lowers it.
//
// Deprecated: use c.Admin().SetClusterVersion.
func (c *Client) SetClusterVersion(ctx context.Context, version uint32) (*idnodev1.ClusterVersionResponse, error) {
	return c.Admin().SetClusterVersion(ctx, version)
}

// ReleaseOwner gives back every ID owner claimed in the client's database.
//
// Deprecated: use c.Admin().ReleaseOwner.
func (c *Client) ReleaseOwner(ctx context.Context, owner string) (int64, error) {
	return c.Admin().ReleaseOwner(ctx, owner)
}

// CreateDatabase creates the database req names.
//
// Deprecated: use c.Databases().Create.
func (c *Client) CreateDatabase(ctx context.Context, req *idnodev1.CreateDatabaseRequest) error {
	return c.Databases().Create(ctx, req)
}

// DeleteDatabase deletes a database.
//
// Deprecated: use c.Databases().Delete.
func (c *Client) DeleteDatabase(ctx context.Context, name string, force bool) error {
	return c.Databases().Delete(ctx, name, force)
}

// ListDatabases lists the databases.
//
// Deprecated: use c.Databases().List.
func (c *Client) ListDatabases(ctx context.Context) ([]*idnodev1.DatabaseStatus, error) {
	return c.Databases().List(ctx)
}

// CreateKey makes an API key for database with role.
//
// Deprecated: use c.Databases().CreateKey.
func (c *Client) CreateKey(ctx context.Context, database, role string) (id, key string, err error) {
	return c.Databases().CreateKey(ctx, database, role)
}

// DeleteKey deletes an API key.
//
// Deprecated: use c.Databases().DeleteKey.
func (c *Client) DeleteKey(ctx context.Context, id string) error {
	return c.Databases().DeleteKey(ctx, id)
}

// ListKeys lists the API keys, without their secrets.
//
// Deprecated: use c.Databases().ListKeys.
func (c *Client) ListKeys(ctx context.Context) ([]*idnodev1.KeyStatus, error) {
	return c.Databases().ListKeys(ctx)
}

// CreateSeries creates a series in the Client's database.
//
// Deprecated: use c.Series().Create.
func (c *Client) CreateSeries(ctx context.Context, req *idnodev1.CreateSeriesRequest) (*idnodev1.Series, error) {
	return c.Series().Create(ctx, req)
}

// ListSeries lists the series of the Client's database.
//
// Deprecated: use c.Series().List.
func (c *Client) ListSeries(ctx context.Context) ([]*idnodev1.Series, error) {
	return c.Series().List(ctx)
}

// Issue assigns the next number of req.Series to a document.
//
// Deprecated: use c.Series().Issue.
func (c *Client) Issue(ctx context.Context, req *idnodev1.IssueRequest) (*idnodev1.SeriesEntry, error) {
	return c.Series().Issue(ctx, req)
}

// Void records req.Number of req.Period as void.
//
// Deprecated: use c.Series().Void.
func (c *Client) Void(ctx context.Context, req *idnodev1.VoidRequest) (*idnodev1.SeriesEntry, error) {
	return c.Series().Void(ctx, req)
}

// VerifySeries recomputes a series' hash chain and numbering on the leader.
//
// Deprecated: use c.Series().Verify.
func (c *Client) VerifySeries(ctx context.Context, series string) (*idnodev1.VerifySeriesResponse, error) {
	return c.Series().Verify(ctx, series)
}

// Journal calls fn with a series' entries from seq from to seq to.
//
// Deprecated: use c.Series().Journal.
func (c *Client) Journal(ctx context.Context, series string, from, to uint64, fn func(*idnodev1.SeriesEntry) error) error {
	return c.Series().Journal(ctx, series, from, to, fn)
}

// AcquireWorker leases a worker ID of the Client's database.
//
// Deprecated: use c.Workers().Acquire.
func (c *Client) AcquireWorker(ctx context.Context, req *idnodev1.AcquireWorkerRequest) (*idnodev1.WorkerLease, error) {
	return c.Workers().Acquire(ctx, req)
}

// RenewWorker extends a worker lease.
//
// Deprecated: use c.Workers().Renew.
func (c *Client) RenewWorker(ctx context.Context, req *idnodev1.RenewWorkerRequest) (*idnodev1.WorkerLease, error) {
	return c.Workers().Renew(ctx, req)
}

// ReleaseWorker ends a worker lease now.
//
// Deprecated: use c.Workers().Release.
func (c *Client) ReleaseWorker(ctx context.Context, req *idnodev1.ReleaseWorkerRequest) error {
	return c.Workers().Release(ctx, req)
}

// ListWorkers returns a page of the database's workers.
//
// Deprecated: use c.Workers().List.
func (c *Client) ListWorkers(ctx context.Context, req *idnodev1.ListWorkersRequest) (*idnodev1.ListWorkersResponse, error) {
	return c.Workers().List(ctx, req)
}
