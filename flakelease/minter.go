// Package flakelease keeps a flake.Generator minting under a worker lease of idnode's: it
// acquires the lease, renews it in the background and releases it on Close. The Go client
// (client.NumericGenerator) and a node minting numeric IDs itself (Generate numeric) both use
// it, each with its own way of reaching the leader (a Leaser).
package flakelease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idnode/idnode/flake"
)

// Grant is a worker lease as the cluster answers it: mint at times (Unix ms) strictly above
// MinMs and up to MaxMs.
type Grant struct {
	Worker      uint32
	Epoch       uint64
	MinMs       int64
	MaxMs       int64
	ExpiresAtMs int64
}

// Leaser asks the cluster for leases. Lost must report whether an error of Renew means the
// lease is not the worker's current one any more (ErrWorkerLeaseLost, FAILED_PRECONDITION).
type Leaser interface {
	Acquire(ctx context.Context, leaseMs int64) (Grant, error)
	Renew(ctx context.Context, worker uint32, epoch uint64, leaseMs int64) (Grant, error)
	Release(ctx context.Context, worker uint32, epoch uint64) error
	Lost(err error) bool
}

// DefaultLease is Options.Lease when it is 0.
const DefaultLease = 30 * time.Second

// Options tune a Minter; Layout is required.
type Options struct {
	Layout flake.Layout
	// Lease is how long each grant runs (1 s..1 h; default 30 s). Renewals go at a third of it.
	Lease time.Duration
	// Margin is how long before the lease's end, by this process's clock, minting stops: it
	// covers the time a request takes and clocks running at different rates. Default a tenth
	// of Lease.
	Margin time.Duration
	// Clock is flake's and the lease's local clock; default time.Now (keep its monotonic
	// reading: a wall-clock step then cannot stretch a lease).
	Clock func() time.Time
}

// Errors of a Minter.
var (
	// ErrBadOptions means Options are out of range; the message says which.
	ErrBadOptions = errors.New("flakelease: bad options")
	// ErrLeaseLost is returned by Next after a renewal found the lease given to another holder,
	// until a new lease is in: nothing may be minted under the old worker any more. Retry
	// shortly.
	ErrLeaseLost = errors.New("flakelease: the worker lease was lost to another holder; a new one is being acquired, retry shortly")
)

// Minter mints IDs under a leased worker, renewing the lease in the background. Safe for
// concurrent use.
type Minter struct {
	leaser  Leaser
	opts    Options
	leaseMs int64

	mu      sync.Mutex
	gen     *flake.Generator
	grant   Grant
	lost    bool // the grant is someone else's now: mint nothing until a new one
	lastErr error

	cancel context.CancelFunc // stops the renewals
	done   chan struct{}      // closed when they stopped
}

// Start acquires a lease and starts renewing it; ctx bounds the first acquisition only.
func Start(ctx context.Context, leaser Leaser, opts Options) (*Minter, error) {
	if opts.Lease == 0 {
		opts.Lease = DefaultLease
	}
	if opts.Margin == 0 {
		opts.Margin = opts.Lease / 10
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	switch {
	case opts.Lease < time.Second || opts.Lease > time.Hour:
		return nil, fmt.Errorf("%w: Lease %v is outside 1s..1h", ErrBadOptions, opts.Lease)
	case opts.Margin < 0 || opts.Margin >= opts.Lease/2:
		return nil, fmt.Errorf("%w: Margin %v must be at least 0 and below half the lease (%v)", ErrBadOptions, opts.Margin, opts.Lease)
	}
	if err := opts.Layout.Validate(); err != nil {
		return nil, err
	}
	m := &Minter{leaser: leaser, opts: opts, leaseMs: opts.Lease.Milliseconds(), done: make(chan struct{})}
	g, lease, err := m.acquire(ctx)
	if err != nil {
		return nil, err
	}
	m.gen, err = flake.New(opts.Layout, lease, flake.Options{Clock: opts.Clock})
	if err != nil {
		m.releaseGrant(ctx, g)
		return nil, err
	}
	m.grant = g
	loopCtx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go m.renewLoop(loopCtx)
	return m, nil
}

// Next mints an ID: no network call. It holds the Minter's lock while it mints, so once a
// renewal found the lease lost, not one more ID is minted under it.
func (m *Minter) Next() (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lost {
		return 0, ErrLeaseLost
	}
	id, err := m.gen.Next()
	if errors.Is(err, flake.ErrLeaseExpired) && m.lastErr != nil {
		return 0, fmt.Errorf("%w (the last renewal failed: %v)", err, m.lastErr)
	}
	return id, err
}

// Grant is the lease the Minter mints under.
func (m *Minter) Grant() Grant {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.grant
}

// Saturations is how many times the minter used up a millisecond's sequence and went on ahead
// of its clock (flake.Generator.Saturations).
func (m *Minter) Saturations() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen.Saturations()
}

// LastError is why the last renewal failed, nil once one succeeded.
func (m *Minter) LastError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastErr
}

// Close stops renewing and releases the lease, within ctx.
func (m *Minter) Close(ctx context.Context) error {
	m.cancel()
	<-m.done
	m.mu.Lock()
	g, lost := m.grant, m.lost
	m.lost = true // nothing minted after Close
	m.mu.Unlock()
	if lost {
		return nil
	}
	return m.leaser.Release(ctx, g.Worker, g.Epoch)
}

// acquire takes a new lease; ValidUntil counts from before the request, so the local end
// comes no later than the cluster's.
func (m *Minter) acquire(ctx context.Context) (Grant, flake.Lease, error) {
	sent := m.opts.Clock()
	g, err := m.leaser.Acquire(ctx, m.leaseMs)
	if err != nil {
		return Grant{}, flake.Lease{}, err
	}
	lease, err := m.leaseOf(g, sent)
	if err != nil {
		m.releaseGrant(ctx, g)
		return Grant{}, flake.Lease{}, err
	}
	return g, lease, nil
}

func (m *Minter) leaseOf(g Grant, sent time.Time) (flake.Lease, error) {
	return m.opts.Layout.LeaseOfMs(uint64(g.Worker), g.Epoch, g.MinMs, g.MaxMs, sent.Add(m.opts.Lease-m.opts.Margin))
}

func (m *Minter) releaseGrant(ctx context.Context, g Grant) {
	_ = m.leaser.Release(ctx, g.Worker, g.Epoch) // best effort: the lease lapses anyway
}

// renewLoop renews at a third of the lease, and after a failure sooner (a tenth), until Close.
func (m *Minter) renewLoop(ctx context.Context) {
	defer close(m.done)
	wait := m.opts.Lease / 3
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if err := m.renewOnce(ctx); err != nil {
			m.mu.Lock()
			m.lastErr = err
			m.mu.Unlock()
			wait = m.opts.Lease / 10
			continue
		}
		m.mu.Lock()
		m.lastErr = nil
		m.mu.Unlock()
		wait = m.opts.Lease / 3
	}
}

// renewOnce renews the lease, or after it was lost acquires another; each call is bounded by
// the lease's length.
func (m *Minter) renewOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Lease/3)
	defer cancel()
	m.mu.Lock()
	g, lost := m.grant, m.lost
	m.mu.Unlock()
	if !lost {
		sent := m.opts.Clock()
		renewed, err := m.leaser.Renew(ctx, g.Worker, g.Epoch, m.leaseMs)
		if err == nil {
			lease, err := m.leaseOf(renewed, sent)
			if err == nil {
				err = m.gen.SetLease(lease)
			}
			if err != nil && !errors.Is(err, flake.ErrStaleLease) {
				return err
			}
			m.mu.Lock()
			m.grant = renewed
			m.mu.Unlock()
			return nil
		}
		if !m.leaser.Lost(err) {
			return err
		}
		// Fenced: another holder has the worker, so not one more ID under it.
		m.mu.Lock()
		m.lost = true
		m.mu.Unlock()
	}
	g, lease, err := m.acquire(ctx)
	if err != nil {
		return err
	}
	if err := m.gen.SetLease(lease); err != nil {
		m.releaseGrant(ctx, g)
		return err
	}
	m.mu.Lock()
	m.grant, m.lost = g, false
	m.mu.Unlock()
	return nil
}
