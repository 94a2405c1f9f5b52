package server

import (
	"context"

	"github.com/idnode/idnode/forward"
	"github.com/idnode/idnode/fsm"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// publishReservations records how far this node's etag counter and HiLo pools may have reached
// through the leader's log (issue 24) and returns this node's record after it: the largest
// value the cluster was ever told, which an older copy of a local file cannot go below.
// req's member ID is set here.
func (s *Server) publishReservations(ctx context.Context, req *raftv1.LocalReservations) (fsm.Reservations, error) {
	req.MemberId = s.node.ID()
	resp, err := forward.Call(s.fwd, ctx, req, forward.Unary, s.recordReservationsLocal, viaForward(forwardv1.ForwardClient.RecordReservations))
	if err != nil {
		return fsm.Reservations{}, err
	}
	res := fsm.Reservations{Etag: resp.GetEtag(), Seal: resp.GetSeal(), SealMatched: resp.GetSealMatched()}
	for _, m := range resp.GetPools() {
		if res.Pools == nil {
			res.Pools = make(map[fsm.PoolKey]int64)
		}
		res.Pools[fsm.PoolKey{Database: fsm.DatabaseName(m.GetDatabase()), Tag: m.GetTag()}] = m.GetGranted()
	}
	return res, nil
}

// recordReservationsLocal applies a publication on the leader; the answer is the whole record.
func (s *Server) recordReservationsLocal(ctx context.Context, req *raftv1.LocalReservations) (*raftv1.LocalReservations, error) {
	res, err := propose(ctx, s, fsm.ProposeLocalReservations, req)
	if err != nil {
		return nil, err
	}
	resp := &raftv1.LocalReservations{MemberId: req.GetMemberId(), Etag: res.Etag, Seal: res.Seal, SealMatched: res.SealMatched}
	for k, granted := range res.Pools {
		resp.Pools = append(resp.Pools, &raftv1.PoolMark{Database: k.Database, Tag: k.Tag, Granted: granted})
	}
	return resp, nil
}

// RecordReservations is the leader's side of a follower's publication.
func (f forwardService) RecordReservations(ctx context.Context, req *raftv1.LocalReservations) (*raftv1.LocalReservations, error) {
	s := f.s
	if !s.node.IsLeader() {
		return nil, s.noQuorum(forward.ErrNoLeader)
	}
	return s.recordReservationsLocal(ctx, req)
}
