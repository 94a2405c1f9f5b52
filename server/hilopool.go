package server

import (
	"context"
	"fmt"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/hilopool"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// HiLoPools is this node's store of HiLo pools (hilopool.Store): numbers the cluster reserved
// to this node, granted from without a Raft round, also while the node is cut off. The grant
// and refill policy is package hilopool's (Granter); this file is its glue to the handlers and
// the leader.
type HiLoPools = hilopool.Pools

// newPoolGranter is the policy that grants from s.cfg.Pools, reserving through the leader.
func (s *idService) newPoolGranter() *hilopool.Granter {
	return hilopool.NewGranter(hilopool.GranterConfig{
		Pools: s.cfg.Pools, Reserve: s.reservePool, Observer: s.cfg.Observer, Logger: s.log, StoreError: toStatus,
	})
}

// poolKey names the pool of a request's tag.
func poolKey(database, tag string) hilopool.Key {
	return hilopool.Key{Database: fsm.DatabaseName(database), Tag: tag}
}

// grantFromPool answers NextHiLo from this node's pool. ok is false when the pool cannot (none
// for the tag yet and no quorum to reserve one, or nothing left): the caller then reserves
// through the cluster as before pools.
func (s *idService) grantFromPool(ctx context.Context, req *idnodev1.NextHiLoRequest) (resp *idnodev1.NextHiLoResponse, ok bool, err error) {
	if s.self.removed() {
		return nil, false, nil // its pools were retired with it
	}
	key := poolKey(req.GetDatabase(), req.GetTag())
	return s.poolAnswers.Answer(key, req.GetRequestId(), func() (*idnodev1.NextHiLoResponse, bool, error) { return s.grantNewFromPool(ctx, key, req) })
}

// grantNewFromPool grants a new range for req from key's pool: above the caller's last_max
// when the node can, below it when the node is cut off (hilopool.Request), and never at or
// below a seed's floor: a pool reserved before a seed holds numbers the seeded store printed.
// (A node that has not applied the seed yet does not know; seed while the cluster is whole.)
func (s *idService) grantNewFromPool(ctx context.Context, key hilopool.Key, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, bool, error) {
	now := s.cfg.Now()
	ask := hilopool.Request{
		ID:       grantIDFor(req),
		Capacity: s.cfg.HiLo.Capacity(req.GetLastBatchSize(), lastRangeAt(req), now),
		LastMax:  req.GetLastMax(),
		Floor:    s.node.FSM().HiLoFloor(req.GetDatabase(), req.GetTag()),
	}
	low, high, ok, err := s.poolGranter.Grant(ctx, key, ask, now)
	if err != nil || !ok {
		return nil, false, err
	}
	return s.hiloResponse(ctx, req, low, high, ask.ID, now), true, nil
}

// reservePool reserves n numbers for key's pool through the leader (hilopool.Reserver).
func (s *idService) reservePool(ctx context.Context, key hilopool.Key, n int64) (low, high int64, err error) {
	req := &raftv1.HiLoPoolReserve{Database: key.Database, Tag: key.Tag, Capacity: n, MemberId: s.node.ID()}
	resp, err := forward.Call(s.fwd, ctx, req, forward.Unary, s.reservePoolLocal, viaForward(forwardv1.ForwardClient.ReserveHiLoPool))
	if err != nil {
		return 0, 0, err
	}
	return resp.GetLow(), resp.GetHigh(), nil
}

// reservePoolLocal applies a pool reservation on the leader.
func (s *idService) reservePoolLocal(ctx context.Context, req *raftv1.HiLoPoolReserve) (*forwardv1.ReserveHiLoPoolResponse, error) {
	rng, err := propose(ctx, s.core, fsm.ProposeHiLoPoolReserve, req)
	if err != nil {
		return nil, err
	}
	return &forwardv1.ReserveHiLoPoolResponse{Low: rng.Low, High: rng.High}, nil
}

// ReserveHiLoPool is the leader's side of a follower's pool reservation.
func (f forwardService) ReserveHiLoPool(ctx context.Context, req *raftv1.HiLoPoolReserve) (*forwardv1.ReserveHiLoPoolResponse, error) {
	if !f.node.IsLeader() {
		return nil, f.noQuorum(forward.ErrNoLeader)
	}
	return f.ids.reservePoolLocal(ctx, req)
}

// returnToPool gives a range this node's pool granted back to it; false when it was not the
// pool's newest grant (the cluster-wide return is tried then). The answer remembered for the
// grant's request_id is forgotten first, so that a retry of that request gets a new range,
// never the returned one (when the return then fails, the retry's new range leaves a gap). A
// return the pool took is remembered under the return's own request_id, in memory as the
// pool's grants are, so its retry on this node answers returned rather than false.
func (s *idService) returnToPool(req *idnodev1.ReturnHiLoRequest) (bool, error) {
	key := poolKey(req.GetDatabase(), req.GetTag())
	detail := fmt.Sprintf("%d..%d", req.GetLast(), req.GetEnd())
	_, ok, err := s.poolReturns.AnswerFor(key, req.GetRequestId(), detail, func() (poolReturned, bool, error) {
		s.poolAnswers.Forget(key, req.GetGrantId(), req.GetEnd())
		ok, err := s.cfg.Pools.Return(key, req.GetGrantId(), req.GetEnd(), req.GetLast())
		if err != nil {
			return poolReturned{}, false, toStatus(err)
		}
		return poolReturned{end: req.GetEnd()}, ok, nil
	})
	return ok, err
}

// poolReturned is a return a pool took, as hilopool.Answers remembers it: the range's end.
type poolReturned struct{ end int64 }

// GetHigh is the returned range's end (hilopool.Reply).
func (r poolReturned) GetHigh() int64 { return r.end }
