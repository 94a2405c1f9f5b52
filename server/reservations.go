package server

import (
	"context"
	"strings"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/hilopool"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// publishReservations records how far this node's etag counter and HiLo pools may have reached
// through the leader's log and returns this node's record after it: the largest
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
func (s *core) recordReservationsLocal(ctx context.Context, req *raftv1.LocalReservations) (*raftv1.LocalReservations, error) {
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
	if !f.node.IsLeader() {
		return nil, f.noQuorum(forward.ErrNoLeader)
	}
	return f.recordReservationsLocal(ctx, req)
}

// poolRecord is this node's record in the cluster as the pool marks use it (hilopool.Record).
type poolRecord struct{ s *Server }

// Publish records marks, per pool the highest number this node may have granted from it.
func (r poolRecord) Publish(ctx context.Context, marks map[hilopool.Key]int64) (map[hilopool.Key]int64, error) {
	req := &raftv1.LocalReservations{Pools: make([]*raftv1.PoolMark, 0, len(marks))}
	for k, v := range marks {
		req.Pools = append(req.Pools, &raftv1.PoolMark{Database: k.Database, Tag: k.Tag, Granted: v})
	}
	res, err := r.s.publishReservations(ctx, req)
	return poolMarksOf(res), err
}

// Unseal clears the seal of this node's pools file; sealMatched says it was digest.
func (r poolRecord) Unseal(ctx context.Context, digest []byte) (map[hilopool.Key]int64, bool, error) {
	res, err := r.s.publishReservations(ctx, &raftv1.LocalReservations{Unseal: digest})
	return poolMarksOf(res), res.SealMatched, err
}

// Seal records digest as this node's pools file at a clean stop.
func (r poolRecord) Seal(ctx context.Context, digest []byte) error {
	_, err := r.s.publishReservations(ctx, &raftv1.LocalReservations{Seal: digest})
	return err
}

// Reserved reports whether this replica has applied a reservation of key's tag to this member.
func (r poolRecord) Reserved(key hilopool.Key) bool {
	return r.s.node.FSM().HiLoPools(key.Database, key.Tag)[r.s.node.ID()] != 0
}

// Fold is key as the FSM names it: database canonical, tag in lower case.
func (poolRecord) Fold(key hilopool.Key) hilopool.Key {
	return hilopool.Key{Database: fsm.DatabaseName(key.Database), Tag: strings.ToLower(key.Tag)}
}

// poolMarksOf is the pool marks of a record.
func poolMarksOf(res fsm.Reservations) map[hilopool.Key]int64 {
	marks := make(map[hilopool.Key]int64, len(res.Pools))
	for k, v := range res.Pools {
		marks[hilopool.Key{Database: k.Database, Tag: k.Tag}] = v
	}
	return marks
}
