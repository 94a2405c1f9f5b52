package client

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/flakelease"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// ErrWorkerLeaseLost is what NumericGenerator.Next returns after a renewal found its worker
// given to another holder (the lease lapsed while this process could not renew it): it mints
// nothing until it has a new lease, which it is acquiring. Retry shortly.
var ErrWorkerLeaseLost = flakelease.ErrLeaseLost

// DefaultWorkerLease is NumericOptions.Lease when it is 0.
const DefaultWorkerLease = flakelease.DefaultLease

// NumericOptions configure a NumericGenerator.
type NumericOptions struct {
	// Layout of the IDs; zero is flake.DefaultLayout(). Every generator of a database must use
	// the same worker bits (the database's first lease fixes them).
	Layout flake.Layout
	// Holder names this process in listings (idctl worker list); default "go-client".
	Holder string
	// Lease is how long each lease runs (1 s..1 h); default 30 s, renewed at a third of it.
	Lease time.Duration
	// Margin is how long before the lease's end, by the local clock, minting stops; the
	// default is a tenth of Lease.
	Margin time.Duration
	// Clock is read for every ID and the lease's local end; default time.Now. Tests inject one.
	Clock func() time.Time
}

// NumericGenerator mints numeric IDs (time | worker | sequence, flake) in-process under a worker
// leased from the cluster: Next makes no network call. Close it to give the worker back.
type NumericGenerator struct {
	m            *flakelease.Minter
	closeTimeout time.Duration
	log          *slog.Logger
}

// NewNumericGenerator acquires a worker lease of the Client's database (ctx bounds that) and
// starts renewing it in the background.
func (c *Client) NewNumericGenerator(ctx context.Context, opts NumericOptions) (*NumericGenerator, error) {
	if opts.Layout == (flake.Layout{}) {
		opts.Layout = flake.DefaultLayout()
	}
	if opts.Holder == "" {
		opts.Holder = "go-client"
	}
	m, err := flakelease.Start(ctx, clientLeaser{c: c, holder: opts.Holder, bits: int32(opts.Layout.WorkerBits)},
		flakelease.Options{Layout: opts.Layout, Lease: opts.Lease, Margin: opts.Margin, Clock: opts.Clock})
	if err != nil {
		return nil, err
	}
	return &NumericGenerator{m: m, closeTimeout: c.opts.closeTimeout, log: c.opts.log}, nil
}

// Next mints an ID. flake's errors say what to do: ErrLeaseExpired (the lease could not be
// renewed in time), ErrClockBehind (the clock stepped back: wait), and ErrWorkerLeaseLost.
func (g *NumericGenerator) Next() (int64, error) { return g.m.Next() }

// Lease is the worker lease the generator mints under.
func (g *NumericGenerator) Lease() flakelease.Grant { return g.m.Grant() }

// Close stops renewing and releases the worker; the generator mints nothing after. It returns
// within ctx and the Client's close timeout (WithCloseTimeout), also when no node answers: a
// worker it could not release is logged, not an error, and goes to another holder once its
// lease lapses.
func (g *NumericGenerator) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, g.closeTimeout)
	defer cancel()
	if err := g.m.Close(ctx); err != nil {
		lease := g.m.Grant()
		g.log.Warn("idnode client: worker not released on close; it is free once its lease lapses",
			"worker", lease.Worker, "epoch", lease.Epoch, "expiresAtMs", lease.ExpiresAtMs, "error", err)
	}
	return nil
}

// clientLeaser takes leases through the Client.
type clientLeaser struct {
	c      *Client
	holder string
	bits   int32
}

func (l clientLeaser) Acquire(ctx context.Context, leaseMs int64) (flakelease.Grant, error) {
	wl, err := l.c.Workers().Acquire(ctx, &idnodev1.AcquireWorkerRequest{Holder: l.holder, WorkerBits: l.bits, LeaseMs: leaseMs})
	return grantOf(wl), err
}

func (l clientLeaser) Renew(ctx context.Context, worker uint32, epoch uint64, leaseMs int64) (flakelease.Grant, error) {
	wl, err := l.c.Workers().Renew(ctx, &idnodev1.RenewWorkerRequest{Worker: worker, Epoch: epoch, LeaseMs: leaseMs})
	return grantOf(wl), err
}

func (l clientLeaser) Release(ctx context.Context, worker uint32, epoch uint64) error {
	return l.c.Workers().Release(ctx, &idnodev1.ReleaseWorkerRequest{Worker: worker, Epoch: epoch})
}

// Lost reports whether err refused a renewal because it named a lease that is not the
// worker's current one: the cluster answers that with FAILED_PRECONDITION, and status.Code
// sees through NodesFailedError.
func (clientLeaser) Lost(err error) bool { return status.Code(err) == codes.FailedPrecondition }

func grantOf(wl *idnodev1.WorkerLease) flakelease.Grant {
	return flakelease.Grant{Worker: wl.GetWorker(), Epoch: wl.GetEpoch(), MinMs: wl.GetMinMs(), MaxMs: wl.GetMaxMs(), ExpiresAtMs: wl.GetExpiresAtMs()}
}
