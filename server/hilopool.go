package server

import (
	"context"
	"sync"
	"time"

	"github.com/idnode/idnode/forward"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/hilopool"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// HiLoPools is this node's store of HiLo pools (hilopool.Store): numbers the cluster reserved
// to this node, granted from without a Raft round, also while the node is cut off.
type HiLoPools interface {
	Add(key hilopool.Key, low, high int64) error
	Grant(key hilopool.Key, grantID string, want, least, above int64) (low, high int64, ok bool, err error)
	Return(key hilopool.Key, grantID string, end, last int64) (bool, error)
	Remaining(key hilopool.Key) int64
}

const (
	refillTimeout  = 5 * time.Second
	refillQueueLen = 256
)

// poolKey names the pool of a request's tag.
func poolKey(database, tag string) hilopool.Key {
	return hilopool.Key{Database: fsm.DatabaseName(database), Tag: tag}
}

// grantFromPool answers NextHiLo from this node's pool. ok is false when the pool cannot (none
// for the tag yet and no quorum to reserve one, or nothing above last_max): the caller then
// reserves through the cluster as before pools.
func (s *Server) grantFromPool(ctx context.Context, req *idnodev1.NextHiLoRequest) (resp *idnodev1.NextHiLoResponse, ok bool, err error) {
	if s.removedFromCluster() {
		return nil, false, nil // its pools were retired with it
	}
	key := poolKey(req.GetDatabase(), req.GetTag())
	return s.poolAnswers.answer(key, req, func() (*idnodev1.NextHiLoResponse, bool, error) { return s.grantNewFromPool(ctx, key, req) })
}

// grantNewFromPool grants a new range for req from key's pool.
func (s *Server) grantNewFromPool(ctx context.Context, key hilopool.Key, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, bool, error) {
	now := s.cfg.Now()
	capacity := s.cfg.HiLo.Capacity(req.GetLastBatchSize(), lastRangeAt(req), now)
	// Nothing at or below the caller's last_max, nor a seed's floor: a pool reserved before a
	// seed holds numbers the seeded store printed. (A node that has not applied the seed yet
	// does not know; seed while the cluster is whole.)
	above := max(req.GetLastMax(), s.node.FSM().HiLoFloor(req.GetDatabase(), req.GetTag()))
	grant := grantIDFor(req)
	low, high, ok, err := s.cfg.Pools.Grant(key, grant, capacity, capacity, above)
	if err != nil {
		return nil, false, toStatus(err)
	}
	if !ok {
		// The first range of a tag this node never served, or a pool without a whole range
		// left: reserving needs a quorum, now.
		if low, high, ok, err = s.grantAfterReserving(ctx, key, grant, capacity, above); err != nil || !ok {
			return nil, false, err
		}
	}
	s.refills.ask(key, capacity, high-low+1, now)
	if s.cfg.Observer != nil {
		s.cfg.Observer.HiLoPoolGrant(key.Database, key.Tag, high-low+1)
	}
	return s.hiloResponse(ctx, req, low, high, grant, now), true, nil
}

// grantAfterReserving grants a whole range from key's pool after topping it up, under the
// key's reservation lock: a background refill in flight may have filled the pool meanwhile
// (then no new reservation), and a reservation added after a grant from a higher one would sit
// below the caller's next last_max and be dropped as a gap. Without a quorum to top the pool
// up, what is left of it still serves, in a shorter range: the client's range policy starts
// over from that size.
func (s *Server) grantAfterReserving(ctx context.Context, key hilopool.Key, grant string, capacity, above int64) (low, high int64, ok bool, err error) {
	unlock := s.refills.lock(key)
	defer unlock()
	if low, high, ok, err = s.cfg.Pools.Grant(key, grant, capacity, capacity, above); err != nil || ok {
		return low, high, ok, toStatus(err)
	}
	if err := s.reservePool(ctx, key, s.refills.target(key, capacity)); err != nil {
		if low, high, ok, gerr := s.cfg.Pools.Grant(key, grant, capacity, 1, above); gerr != nil || ok {
			return low, high, ok, toStatus(gerr)
		}
		return 0, 0, false, err
	}
	low, high, ok, err = s.cfg.Pools.Grant(key, grant, capacity, capacity, above)
	return low, high, ok, toStatus(err)
}

// reservePool reserves n numbers for key's pool through the leader and adds them to the pool.
// The caller holds the key's reservation lock (refiller.lock).
// Numbers the log reserved whose answer was lost are a gap, never granted by anyone.
func (s *Server) reservePool(ctx context.Context, key hilopool.Key, n int64) error {
	req := &raftv1.HiLoPoolReserve{Database: key.Database, Tag: key.Tag, Capacity: n, MemberId: s.node.ID()}
	resp, err := forward.Call(s.fwd, ctx, req, forward.Unary, s.reservePoolLocal, viaForward(forwardv1.ForwardClient.ReserveHiLoPool))
	if err != nil {
		return err
	}
	if err := s.cfg.Pools.Add(key, resp.GetLow(), resp.GetHigh()); err != nil {
		return toStatus(err)
	}
	if s.cfg.Observer != nil {
		s.cfg.Observer.HiLoPoolRefill(key.Database, key.Tag, resp.GetHigh()-resp.GetLow()+1)
	}
	return nil
}

// reservePoolLocal applies a pool reservation on the leader.
func (s *Server) reservePoolLocal(ctx context.Context, req *raftv1.HiLoPoolReserve) (*forwardv1.ReserveHiLoPoolResponse, error) {
	rng, err := propose(ctx, s, fsm.ProposeHiLoPoolReserve, req)
	if err != nil {
		return nil, err
	}
	return &forwardv1.ReserveHiLoPoolResponse{Low: rng.Low, High: rng.High}, nil
}

// ReserveHiLoPool is the leader's side of a follower's pool reservation.
func (f forwardService) ReserveHiLoPool(ctx context.Context, req *raftv1.HiLoPoolReserve) (*forwardv1.ReserveHiLoPoolResponse, error) {
	s := f.s
	if !s.node.IsLeader() {
		return nil, s.noQuorum(forward.ErrNoLeader)
	}
	return s.reservePoolLocal(ctx, req)
}

// refiller tops pools up in the background, one reservation at a time, so a busy tag's callers
// are granted from the pool and never wait for the log. On a node without a quorum the
// reservations fail; the pool then lasts as long as its numbers do.
type refiller struct {
	mu      sync.Mutex
	pending map[hilopool.Key]int64      // key → the range size it was last granted at
	rates   map[hilopool.Key]*grantRate // at most maxTrackedTags; the others are sized by range size alone
	wake    chan struct{}
	// reserving serialises the reservations of each pool (lock).
	reserving sync.Map // hilopool.Key → *sync.Mutex
}

func newRefiller() *refiller {
	return &refiller{pending: make(map[hilopool.Key]int64), rates: make(map[hilopool.Key]*grantRate), wake: make(chan struct{}, 1)}
}

// lock takes key's reservation lock and returns its unlock: one reservation of a pool at a
// time, so reservations are added in the order the log made them.
func (r *refiller) lock(key hilopool.Key) func() {
	m, _ := r.reserving.LoadOrStore(key, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// ask records a grant of n numbers from key's pool, in a range of size capacity, and queues
// key for a look.
func (r *refiller) ask(key hilopool.Key, capacity, n int64, now time.Time) {
	r.mu.Lock()
	rate := r.rates[key]
	if rate == nil && len(r.rates) < maxTrackedTags {
		rate = &grantRate{}
		r.rates[key] = rate
	}
	if rate != nil {
		rate.add(n, now)
	}
	if len(r.pending) < refillQueueLen {
		r.pending[key] = max(r.pending[key], capacity)
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// target is the size key's pool should have for ranges of size capacity at its measured rate.
func (r *refiller) target(key hilopool.Key, capacity int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var perSecond float64
	if rate := r.rates[key]; rate != nil {
		perSecond = rate.perSecond
	}
	return poolTarget(capacity, perSecond)
}

func (r *refiller) take() map[hilopool.Key]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.pending
	r.pending = make(map[hilopool.Key]int64)
	return out
}

// refillPools runs until ctx ends: each pool asked about that holds less than half its target
// gets topped up to the target.
func (s *Server) refillPools(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.refills.wake:
		}
		for key, capacity := range s.refills.take() {
			s.refill(ctx, key, capacity)
		}
	}
}

// refill tops key's pool up to its target when it holds less than half of it.
func (s *Server) refill(ctx context.Context, key hilopool.Key, capacity int64) {
	unlock := s.refills.lock(key)
	defer unlock()
	target := s.refills.target(key, capacity)
	left := s.cfg.Pools.Remaining(key)
	if left >= target/2 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, refillTimeout)
	defer cancel()
	if err := s.reservePool(ctx, key, target-left); err != nil {
		s.log.Debug("HiLo pool not refilled", "database", key.Database, "tag", key.Tag, "left", left, "err", err)
	}
}

// returnToPool gives a range this node's pool granted back to it; false when it was not the
// pool's newest grant (the cluster-wide return is tried then). The answer remembered for the
// grant's request_id is forgotten first, so that a retry of that request gets a new range,
// never the returned one (when the return then fails, the retry's new range leaves a gap).
func (s *Server) returnToPool(req *idnodev1.ReturnHiLoRequest) (bool, error) {
	key := poolKey(req.GetDatabase(), req.GetTag())
	s.poolAnswers.forget(key, req.GetGrantId(), req.GetEnd())
	ok, err := s.cfg.Pools.Return(key, req.GetGrantId(), req.GetEnd(), req.GetLast())
	if err != nil {
		return false, toStatus(err)
	}
	return ok, nil
}
