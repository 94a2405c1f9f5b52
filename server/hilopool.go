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

// hiloPools is the ID service's side of this node's HiLo pools: granting from them and giving
// ranges back, reserving for them through the leader, and saying what they hold. It needs the
// core only for the node, its way to the leader and proposing a reservation there.
type hiloPools struct {
	c       *core
	granter *hilopool.Granter // grants from cfg.Pools
	answers *hilopool.Answers[*idnodev1.NextHiLoResponse]
	returns *hilopool.Answers[poolReturned] // the returns the pools took, by request_id
}

// newHiLoPools is the pools of c's node, whose granter grants from cfg.Pools, reserving
// through the leader.
func newHiLoPools(c *core) *hiloPools {
	p := &hiloPools{
		c:       c,
		answers: hilopool.NewAnswers[*idnodev1.NextHiLoResponse](toStatus(fsm.ErrRequestIDReused)),
		returns: hilopool.NewAnswers[poolReturned](toStatus(fsm.ErrRequestIDReused)),
	}
	p.granter = hilopool.NewGranter(hilopool.GranterConfig{
		Pools: c.cfg.Pools, Reserve: p.reserve, Observer: c.cfg.Observer, Logger: c.log, StoreError: toStatus,
	})
	return p
}

// poolKey names the pool of a request's tag.
func poolKey(database, tag string) hilopool.Key {
	return hilopool.Key{Database: fsm.DatabaseName(database), Tag: tag}
}

// grant answers NextHiLo from this node's pool. ok is false when the pool cannot (none
// for the tag yet and no quorum to reserve one, or nothing left): the caller then reserves
// through the cluster as before pools.
func (p *hiloPools) grant(ctx context.Context, req *idnodev1.NextHiLoRequest) (resp *idnodev1.NextHiLoResponse, ok bool, err error) {
	if p.c.self.removed() {
		return nil, false, nil // its pools were retired with it
	}
	key := poolKey(req.GetDatabase(), req.GetTag())
	return p.answers.Answer(key, req.GetRequestId(), func() (*idnodev1.NextHiLoResponse, bool, error) { return p.grantNew(ctx, key, req) })
}

// grantNew grants a new range for req from key's pool: above the caller's last_max
// when the node can, below it when the node is cut off (hilopool.Request), and never at or
// below a seed's floor: a pool reserved before a seed holds numbers the seeded store printed.
// (A node that has not applied the seed yet does not know; seed while the cluster is whole.)
func (p *hiloPools) grantNew(ctx context.Context, key hilopool.Key, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, bool, error) {
	now := p.c.cfg.Now()
	ask := hilopool.Request{
		ID:       grantIDFor(req),
		Capacity: p.c.cfg.HiLo.Capacity(req.GetLastBatchSize(), lastRangeAt(req), now),
		LastMax:  req.GetLastMax(),
		Floor:    p.c.node.FSM().HiLoFloor(req.GetDatabase(), req.GetTag()),
	}
	low, high, ok, err := p.granter.Grant(ctx, key, ask, now)
	if err != nil || !ok {
		return nil, false, err
	}
	return hiloResponse(ctx, p.c, req, low, high, ask.ID, now), true, nil
}

// reserve reserves n numbers for key's pool through the leader (hilopool.Reserver).
func (p *hiloPools) reserve(ctx context.Context, key hilopool.Key, n int64) (low, high int64, err error) {
	req := &raftv1.HiLoPoolReserve{Database: key.Database, Tag: key.Tag, Capacity: n, MemberId: p.c.node.ID()}
	resp, err := forward.Call(p.c.fwd, ctx, req, forward.Unary, p.reserveLocal, viaForward(forwardv1.ForwardClient.ReserveHiLoPool))
	if err != nil {
		return 0, 0, err
	}
	return resp.GetLow(), resp.GetHigh(), nil
}

// reserveLocal applies a pool reservation on the leader.
func (p *hiloPools) reserveLocal(ctx context.Context, req *raftv1.HiLoPoolReserve) (*forwardv1.ReserveHiLoPoolResponse, error) {
	rng, err := propose(ctx, p.c, fsm.ProposeHiLoPoolReserve, req)
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
	return f.ids.pools.reserveLocal(ctx, req)
}

// giveBack gives a range this node's pool granted back to it; false when it was not the
// pool's newest grant (the cluster-wide return is tried then). The answer remembered for the
// grant's request_id is forgotten first, so that a retry of that request gets a new range,
// never the returned one (when the return then fails, the retry's new range leaves a gap). A
// return the pool took is remembered under the return's own request_id, in memory as the
// pool's grants are, so its retry on this node answers returned rather than false.
func (p *hiloPools) giveBack(req *idnodev1.ReturnHiLoRequest) (bool, error) {
	key := poolKey(req.GetDatabase(), req.GetTag())
	detail := fmt.Sprintf("%d..%d", req.GetLast(), req.GetEnd())
	_, ok, err := p.returns.AnswerFor(key, req.GetRequestId(), detail, func() (poolReturned, bool, error) {
		p.answers.Forget(key, req.GetGrantId(), req.GetEnd())
		ok, err := p.c.cfg.Pools.Return(key, req.GetGrantId(), req.GetEnd(), req.GetLast())
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
