package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/flakelease"
	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Numeric IDs minted by a node itself (Generate with numeric set): the node holds one worker
// lease per database it mints in, acquired on first use through the leader and renewed in the
// background. Cut off from the leader it mints until the lease's local end, then refuses.

// DefaultNumericLease is Config.NumericLease when it is 0.
const DefaultNumericLease = 30 * time.Second

// numericCloseTimeout bounds the release of the leases when the server closes.
const numericCloseTimeout = 2 * time.Second

// numericMinters are this node's minters, by database (fsm.DatabaseName): at most one per
// database that exists, since Generate checks that first.
type numericMinters struct {
	mu     sync.Mutex
	closed bool
	byDB   map[string]*numericMinter
}

// numericMinter is one database's; mu is held while its lease is first acquired, so callers
// of that database wait for it rather than each acquiring a worker. m is set once, under mu,
// and read without it by the headroom gauges, which must not wait for an acquisition.
type numericMinter struct {
	mu sync.Mutex
	m  atomic.Pointer[flakelease.Minter]
}

// numericIDs mints count numeric IDs of db, as decimal strings.
func (s *idService) numericIDs(ctx context.Context, db string, count int64) ([]string, error) {
	m, err := s.numericMinter(ctx, db)
	if err != nil {
		return nil, err
	}
	write, err := s.forms().numericWriter(db)
	if err != nil {
		return nil, err
	}
	ids := make([]string, count)
	for i := range ids {
		id, err := m.Next()
		if errors.Is(err, flake.ErrClockBehind) {
			s.observer().NumericClockBehind(db)
		}
		if err != nil {
			return nil, numericRefusal(err)
		}
		if ids[i], err = write(id); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func (s *idService) numericMinter(ctx context.Context, db string) (*flakelease.Minter, error) {
	s.numeric.mu.Lock()
	if s.numeric.closed {
		s.numeric.mu.Unlock()
		return nil, reason.Error(codes.Unavailable, reason.ShuttingDown, "the node is stopping; mint numeric IDs on another")
	}
	if s.numeric.byDB == nil {
		s.numeric.byDB = make(map[string]*numericMinter)
	}
	key := fsm.DatabaseName(db) // "Billing" and "billing" are one database, with one worker
	nm := s.numeric.byDB[key]
	if nm == nil {
		nm = &numericMinter{}
		s.numeric.byDB[key] = nm
	}
	s.numeric.mu.Unlock()

	nm.mu.Lock()
	defer nm.mu.Unlock()
	if m := nm.m.Load(); m != nil {
		return m, nil
	}
	m, err := flakelease.Start(ctx, nodeLeaser{s: s, db: db}, flakelease.Options{Layout: flake.DefaultLayout(), Lease: s.cfg.NumericLease, Clock: s.cfg.Now})
	if err != nil {
		return nil, toStatus(err)
	}
	// The leader granted the lease after every command before it, a MakeOpaque among them; this
	// node's state may not hold it yet. Catching up once, here, settles whether the database's
	// numeric IDs are opaque for as long as the minter lives: they can turn opaque only before
	// the database's first lease.
	if !s.knownAfterCatchUp(ctx, func() bool { return holdsLease(s.node.FSM(), db, m.Grant()) }) {
		go func() { // best effort: the lease lapses anyway
			ctx, cancel := context.WithTimeout(context.Background(), numericCloseTimeout)
			defer cancel()
			_ = m.Close(ctx)
		}()
		return nil, reason.Error(codes.Unavailable, reason.NoQuorum, "this node has not caught up with the leader since it leased a worker for numeric IDs; retry, here or on another node")
	}
	s.numeric.mu.Lock()
	defer s.numeric.mu.Unlock()
	if s.numeric.closed { // closed while acquiring: give the lease back at once
		go func() { // best effort: the lease lapses anyway
			ctx, cancel := context.WithTimeout(context.Background(), numericCloseTimeout)
			defer cancel()
			_ = m.Close(ctx)
		}()
		return nil, reason.Error(codes.Unavailable, reason.ShuttingDown, "the node is stopping; mint numeric IDs on another")
	}
	nm.m.Store(m)
	return m, nil
}

// holdsLease reports whether state f holds grant g of database db, or a later one of its
// worker: it has applied the lease.
func holdsLease(f *fsm.FSM, db string, g flakelease.Grant) bool {
	ws, err := f.Workers(db)
	return err == nil && int(g.Worker) < len(ws) && ws[g.Worker].Epoch >= g.Epoch
}

// saturations is how many times each database's minter used up a millisecond's sequence, by
// database name (fsm.DatabaseName).
func (n *numericMinters) saturations() map[string]uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string]uint64, len(n.byDB))
	for db, nm := range n.byDB {
		if m := nm.m.Load(); m != nil {
			out[db] = m.Saturations()
		}
	}
	return out
}

// closeNumeric releases every lease, in parallel, within timeout.
func (s *idService) closeNumeric(timeout time.Duration) {
	s.numeric.mu.Lock()
	s.numeric.closed = true
	all := s.numeric.byDB
	s.numeric.byDB = nil
	s.numeric.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var wg sync.WaitGroup
	for db, nm := range all {
		nm.mu.Lock()
		m := nm.m.Load()
		nm.mu.Unlock()
		if m == nil {
			continue
		}
		wg.Go(func() {
			if err := m.Close(ctx); err != nil {
				s.log.Warn("numeric IDs: the worker lease was not released; it lapses by itself", "database", db, "err", err)
			}
		})
	}
	wg.Wait()
}

// numericRefusal is the status of a minting error: a lease that ran out or was lost means the
// node cannot reach the leader (or could not in time), NO_QUORUM: retry on another node.
func numericRefusal(err error) error {
	switch {
	case errors.Is(err, flake.ErrLeaseExpired), errors.Is(err, flake.ErrLeaseExhausted), errors.Is(err, flakelease.ErrLeaseLost):
		return reason.Error(codes.Unavailable, reason.NoQuorum,
			fmt.Sprintf("this node's worker lease for numeric IDs ran out and could not be renewed through the leader: %v; use another node", err))
	case errors.Is(err, flake.ErrClockBehind):
		return status.Errorf(codes.Unavailable, "%v", err)
	case errors.Is(err, flake.ErrLayoutExhausted):
		return status.Errorf(codes.OutOfRange, "%v", err)
	}
	return toStatus(err)
}

// nodeLeaser takes leases through this node's own handlers, which forward to the leader.
type nodeLeaser struct {
	s  *idService
	db string
}

func (n nodeLeaser) Acquire(ctx context.Context, leaseMs int64) (flakelease.Grant, error) {
	wl, err := n.s.acquireWorker(ctx, &idnodev1.AcquireWorkerRequest{Database: n.db, Holder: fsm.NodeHolderPrefix + n.s.cfg.Tag,
		WorkerBits: int32(flake.DefaultLayout().WorkerBits), LeaseMs: leaseMs})
	return grantOf(wl), err
}

func (n nodeLeaser) Renew(ctx context.Context, worker uint32, epoch uint64, leaseMs int64) (flakelease.Grant, error) {
	wl, err := n.s.RenewWorker(ctx, &idnodev1.RenewWorkerRequest{Database: n.db, Worker: worker, Epoch: epoch, LeaseMs: leaseMs})
	return grantOf(wl), err
}

func (n nodeLeaser) Release(ctx context.Context, worker uint32, epoch uint64) error {
	_, err := n.s.ReleaseWorker(ctx, &idnodev1.ReleaseWorkerRequest{Database: n.db, Worker: worker, Epoch: epoch})
	return err
}

func (nodeLeaser) Lost(err error) bool {
	return errors.Is(err, fsm.ErrWorkerLeaseLost) || status.Code(err) == codes.FailedPrecondition
}

func grantOf(wl *idnodev1.WorkerLease) flakelease.Grant {
	return flakelease.Grant{Worker: wl.GetWorker(), Epoch: wl.GetEpoch(), MinMs: wl.GetMinMs(), MaxMs: wl.GetMaxMs(), ExpiresAtMs: wl.GetExpiresAtMs()}
}
