package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/identity"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

const (
	// opDeadline bounds a client's call, retries included; attemptDeadline one try of it.
	opDeadline      = 3 * time.Second
	attemptDeadline = time.Second
	retryPause      = 50 * time.Millisecond
	// workerBits gives the layout four workers, fewer than would go round without waits.
	workerBits = 2
)

// retryable reports whether a call ended without the FSM's answer, so that its outcome is
// unknown and a retry with the same request id is how a client learns it.
func retryable(err error) bool {
	return errors.Is(err, errUnanswered) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, identity.ErrCommitTimeout) || errors.Is(err, identity.ErrClosed)
}

// call runs attempt through whichever node leads, again and again with the same request,
// until the FSM answers or opDeadline passes. It returns the node that answered.
func (s *sim) call(ctx context.Context, attempt func(ctx context.Context, node int) error) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, opDeadline)
	defer cancel()
	err := fmt.Errorf("%w: no node led", errUnanswered)
	for {
		if node := s.c.leader(); node >= 0 {
			actx, acancel := context.WithTimeout(ctx, attemptDeadline)
			err = attempt(actx, node)
			acancel()
			if err == nil || !retryable(err) {
				return node, err
			}
		}
		select {
		case <-ctx.Done():
			return -1, err
		case <-time.After(retryPause):
		}
	}
}

// think is a client's pause between calls.
func think(rng *rand.Rand, upTo time.Duration) {
	time.Sleep(time.Duration(rng.Int64N(int64(upTo))))
}

// identityClient asks for blocks of 1..5 values of name through the leader's batcher, as
// the server's NextIdentity does.
func (s *sim) identityClient(ctx context.Context, who, name string, rng *rand.Rand) {
	for op := 0; ctx.Err() == nil; op++ {
		think(rng, 3*time.Second)
		inc := &raftv1.IdentityIncrement{Name: name, Count: 1 + rng.Int64N(5), RequestId: fmt.Sprintf("%s-%d", who, op)}
		issued := time.Now()
		var block identity.Result
		node, err := s.call(ctx, func(ctx context.Context, i int) (err error) {
			block, err = s.batchers[i].Next(ctx, inc)
			return err
		})
		if err != nil {
			s.h.failed()
			continue
		}
		s.h.identity(name, block.IdentityBlock, issued, fmt.Sprintf("%s via %s", who, nodeName(node)))
	}
}

// hiloClient reserves ranges of tag and gives half of them back in part or whole, as the
// Go generator's Close does.
func (s *sim) hiloClient(ctx context.Context, who, tag string, rng *rand.Rand) {
	for op := 0; ctx.Err() == nil; op++ {
		think(rng, 4*time.Second)
		req := &raftv1.HiLoReserve{Tag: tag, Capacity: 1 + rng.Int64N(32), RequestId: fmt.Sprintf("%s-%d", who, op)}
		var r fsm.HiLoRange
		node, err := s.call(ctx, func(ctx context.Context, i int) (err error) {
			req.ProposedAtMs = s.nowMs(i)
			r, err = fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeHiLoGrant, req)
			return err
		})
		if err != nil {
			s.h.failed()
			continue
		}
		g := s.h.grant(tag, r, fmt.Sprintf("%s via %s", who, nodeName(node)))
		if rng.IntN(2) == 0 {
			continue
		}
		think(rng, 3*time.Second)
		// The client gives up the numbers above last when it sends the return, answered or not.
		last := r.Low - 1 + rng.Int64N(r.High-r.Low+2)
		s.h.returning(g, last)
		ret := &raftv1.HiLoReturn{Tag: tag, End: r.High, Last: last, GrantId: r.GrantID, RequestId: fmt.Sprintf("%s-%d-return", who, op)}
		if _, err := s.call(ctx, func(ctx context.Context, i int) error {
			_, err := fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeHiLoReturnGrant, ret)
			return err
		}); err != nil {
			s.h.failed()
		}
	}
}

// registerNodes registers the three nodes in the state, as each node registers itself when
// it joins, so that the pools' commands name members.
func (s *sim) registerNodes(ctx context.Context) error {
	for k := range s.c.nodes {
		name := nodeName(k)
		req := &raftv1.RegisterNode{Tag: string(rune('A' + k)), Id: name, RaftAddress: name, Incarnation: "incarnation-" + name,
			NodeVersion: fsm.CurrentVersion, FoundingVersion: fsm.CurrentVersion}
		if _, err := s.call(ctx, func(ctx context.Context, i int) error {
			_, err := fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeRegisterNode, req)
			return err
		}); err != nil {
			return fmt.Errorf("register %s: %w", name, err)
		}
	}
	return nil
}

// poolClient reserves numbers of tag to a node's HiLo pool, as a node does when its pool runs
// low (package hilopool), and publishes the pool's mark, as a node does before it grants from
// the pool: pools are how a minority grants HiLo ranges, and their numbers must stay apart from
// every range granted through the log. A pool's numbers count as the node's from the answer
// on: it may grant every one of them.
func (s *sim) poolClient(ctx context.Context, tag string, rng *rand.Rand) {
	marks := make([]int64, len(s.c.nodes))
	for ctx.Err() == nil {
		think(rng, 8*time.Second)
		k := rng.IntN(len(s.c.nodes))
		req := &raftv1.HiLoPoolReserve{Tag: tag, Capacity: 16 + rng.Int64N(48), MemberId: nodeName(k)}
		var r fsm.HiLoRange
		node, err := s.call(ctx, func(ctx context.Context, i int) (err error) {
			r, err = fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeHiLoPoolReserve, req)
			return err
		})
		if err != nil {
			s.h.failed()
			continue
		}
		s.h.grant(tag, r, fmt.Sprintf("%s's pool via %s", nodeName(k), nodeName(node)))
		think(rng, 2*time.Second)
		marks[k] = max(marks[k], r.Low-1+rng.Int64N(r.High-r.Low+2))
		mark := &raftv1.LocalReservations{MemberId: nodeName(k), Pools: []*raftv1.PoolMark{{Tag: tag, Granted: marks[k]}}}
		if _, err := s.call(ctx, func(ctx context.Context, i int) error {
			_, err := fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeLocalReservations, mark)
			return err
		}); err != nil {
			s.h.failed()
		}
	}
}

// markClient proposes digest marks, as the leader's replica check does, and keeps the index
// of each answered one: at the end, every replica that holds a digest at a mark must hold the
// same (sim.compareMarks). A mark's records are captured while its entry is applied and
// hashed beside the applies that follow, during the faults, on replicas that crash, replay
// and install snapshots.
func (s *sim) markClient(ctx context.Context, rng *rand.Rand) {
	for ctx.Err() == nil {
		think(rng, 10*time.Second)
		var index uint64
		if _, err := s.call(ctx, func(ctx context.Context, i int) (err error) {
			index, err = fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeDigestMark, &raftv1.DigestMark{ProposedAtMs: s.nowMs(i)})
			return err
		}); err != nil {
			continue // a mark changes nothing: an unanswered one is not a call the ledger counts
		}
		s.marksMu.Lock()
		s.marks = append(s.marks, index)
		s.marksMu.Unlock()
	}
}

// claimClient claims IDs of the identity name a little above the values handed out so far
// (where increments must skip them), under its own name as owner, and releases some.
func (s *sim) claimClient(ctx context.Context, owner, name string, rng *rand.Rand) {
	var held []*claimHold
	for op := 0; ctx.Err() == nil; op++ {
		think(rng, 5*time.Second)
		if len(held) > 0 && rng.IntN(3) == 0 {
			k := rng.IntN(len(held))
			h := held[k]
			held = append(held[:k], held[k+1:]...)
			s.h.releasing(h)
			if _, err := s.call(ctx, func(ctx context.Context, i int) error {
				_, err := fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeRelease, &raftv1.Release{Ids: []string{h.id}, Owner: owner})
				return err
			}); err != nil {
				s.h.failed()
			}
			continue
		}
		id := fmt.Sprintf("%s/%d", name, s.h.highest(name)+1+rng.Int64N(40))
		req := &raftv1.Claim{Ids: []string{id}, Owner: owner, RequestId: fmt.Sprintf("%s-%d", owner, op)}
		node, err := s.call(ctx, func(ctx context.Context, i int) error {
			req.ProposedAtMs = s.nowMs(i)
			_, err := fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeClaim, req)
			return err
		})
		if err != nil {
			s.h.failed()
			continue
		}
		held = append(held, s.h.claimed(id, owner, fmt.Sprintf("%s via %s", owner, nodeName(node))))
	}
}

// workerClient leases a worker of numeric IDs, renews it a few times and releases it or lets
// it lapse, as the Go client's minter does.
func (s *sim) workerClient(ctx context.Context, holder string, rng *rand.Rand) {
	for op := 0; ctx.Err() == nil; op++ {
		think(rng, 5*time.Second)
		leaseMs := 1000 + rng.Int64N(4000)
		req := &raftv1.AcquireWorker{Holder: holder, WorkerBits: workerBits, LeaseMs: leaseMs, RequestId: fmt.Sprintf("%s-%d", holder, op)}
		var lease fsm.WorkerLease
		node, err := s.call(ctx, func(ctx context.Context, i int) (err error) {
			req.ProposedAtMs = s.nowMs(i)
			lease, err = fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeAcquireWorker, req)
			return err
		})
		if err != nil {
			s.h.failed()
			continue
		}
		s.h.lease(lease, fmt.Sprintf("%s acquired via %s", holder, nodeName(node)))
		for range rng.IntN(4) {
			time.Sleep(time.Duration(leaseMs*(3+rng.Int64N(9))/10) * time.Millisecond)
			renew := &raftv1.RenewWorker{Worker: lease.Worker, Epoch: lease.Epoch, LeaseMs: leaseMs}
			var renewed fsm.WorkerLease
			node, err := s.call(ctx, func(ctx context.Context, i int) (err error) {
				renew.ProposedAtMs = s.nowMs(i)
				renewed, err = fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeRenewWorker, renew)
				return err
			})
			if err != nil {
				s.h.failed()
				break
			}
			lease = renewed
			s.h.lease(lease, fmt.Sprintf("%s renewed via %s", holder, nodeName(node)))
		}
		if rng.IntN(2) == 0 {
			release := &raftv1.ReleaseWorker{Worker: lease.Worker, Epoch: lease.Epoch}
			if _, err := s.call(ctx, func(ctx context.Context, i int) error {
				release.ProposedAtMs = s.nowMs(i)
				_, err := fsm.Propose(ctx, applier{s.c, i}, fsm.ProposeReleaseWorker, release)
				return err
			}); err != nil {
				s.h.failed()
			}
		}
	}
}
