package server

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/idnode/idnode/fsm"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// ListHiLo lists a database's HiLo tags. The leader answers the page from its state (each
// tag's Max and floor, and what each node's pool got), after a read barrier like every
// listing; then this node asks each of those nodes, in parallel and within probeTimeout,
// what its pools of the page's tags hold now. A node that does not answer is shown as such:
// the page is never held up by a node that is down.
func (s *idService) ListHiLo(ctx context.Context, req *idnodev1.ListHiLoRequest) (*idnodev1.ListHiLoResponse, error) {
	resp, err := listed(s.core, ctx, req, func(size int32, db string) { req.PageSize, req.Database = size, db },
		s.leader().ListHiLo, viaIDs(s.core, idnodev1.IdServiceClient.ListHiLo, forwardv1.LeaderClient.ListHiLo))
	if err != nil {
		return nil, err
	}
	s.pools.ask(ctx, req.GetDatabase(), resp.GetTags())
	return resp, nil
}

// ListHiLo runs on the leader.
func (l idLeader) ListHiLo(ctx context.Context, req *idnodev1.ListHiLoRequest) (*idnodev1.ListHiLoResponse, error) {
	page, next, err := leaderPage(l.s.core, ctx, req,
		func(after string, n int) ([]fsm.HiLoTag, bool, error) {
			return l.s.node.FSM().HiLoTags(req.GetDatabase(), req.GetPrefix(), after, n)
		},
		l.s.hiloTag,
		func(t fsm.HiLoTag) string { return t.Tag })
	if err != nil {
		return nil, err
	}
	return &idnodev1.ListHiLoResponse{Tags: page, NextPageToken: next}, nil
}

// hiloTag is t as ListHiLo answers it, its pools by node tag.
func (s *idService) hiloTag(t fsm.HiLoTag) *idnodev1.HiLoTag {
	out := &idnodev1.HiLoTag{Tag: t.Tag, Max: t.Max, Floor: t.Floor}
	for id, n := range t.Pools {
		out.Pools = append(out.Pools, &idnodev1.HiLoPool{Node: s.tagOf(id), Reserved: n})
	}
	slices.SortFunc(out.Pools, func(a, b *idnodev1.HiLoPool) int { return strings.Compare(a.GetNode(), b.GetNode()) })
	return out
}

// ask fills in, for each node with a pool among tags, what the node says its pools hold.
func (p *hiloPools) ask(ctx context.Context, database string, tags []*idnodev1.HiLoTag) {
	type asked struct {
		pools []*idnodev1.HiLoPool // the node's pools on the page, in tags' order
		tags  []string             // the tags of those pools
	}
	byNode := map[string]*asked{}
	for _, t := range tags {
		for _, p := range t.GetPools() {
			a := byNode[p.GetNode()]
			if a == nil {
				a = &asked{}
				byNode[p.GetNode()] = a
			}
			a.pools, a.tags = append(a.pools, p), append(a.tags, t.GetTag())
		}
	}
	addrs := map[string]string{}
	for _, n := range p.c.node.FSM().Nodes() {
		addrs[n.Tag] = n.RaftAddress
	}
	var wg sync.WaitGroup
	for node, a := range byNode {
		wg.Go(func() {
			states, ok := p.statesOf(ctx, node, addrs[node], database, a.tags)
			if !ok {
				return // shown as not answered
			}
			for i, pool := range a.pools {
				st := states[i]
				pool.Answered, pool.Remaining, pool.Target, pool.ToppedUpMs = true, st.GetRemaining(), st.GetTarget(), st.GetToppedUpMs()
			}
		})
	}
	wg.Wait()
}

// statesOf asks node (this one, or another at its Raft address) about its pools of tags;
// ok is false when it did not answer one state per tag in time.
func (p *hiloPools) statesOf(ctx context.Context, node, addr, database string, tags []string) ([]*idnodev1.HiLoPool, bool) {
	req := &forwardv1.PoolStatesRequest{Database: database, Tags: tags}
	if node == p.c.cfg.Tag {
		return p.states(req).GetPools(), true
	}
	if addr == "" {
		return nil, false
	}
	cc, err := p.c.fwd.Conn(addr)
	if err != nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	resp, err := forwardv1.NewForwardClient(cc).PoolStates(ctx, req)
	if err != nil || len(resp.GetPools()) != len(tags) {
		return nil, false
	}
	return resp.GetPools(), true
}

// PoolStates answers another node's hiloPools.ask.
func (f forwardService) PoolStates(_ context.Context, req *forwardv1.PoolStatesRequest) (*forwardv1.PoolStatesResponse, error) {
	return f.ids.pools.states(req), nil
}

// states is what this node's pools of req's tags hold, one per tag in order.
func (p *hiloPools) states(req *forwardv1.PoolStatesRequest) *forwardv1.PoolStatesResponse {
	out := &forwardv1.PoolStatesResponse{Pools: make([]*idnodev1.HiLoPool, len(req.GetTags()))}
	for i, tag := range req.GetTags() {
		pool := &idnodev1.HiLoPool{Answered: true}
		if p.c.cfg.Pools != nil { // a node without pools (tests) holds none
			st := p.granter.State(poolKey(req.GetDatabase(), tag))
			pool.Remaining, pool.Target = st.Remaining, st.Target
			if !st.ToppedUp.IsZero() {
				pool.ToppedUpMs = st.ToppedUp.UnixMilli()
			}
		}
		out.Pools[i] = pool
	}
	return out
}
