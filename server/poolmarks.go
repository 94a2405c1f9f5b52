package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/hilopool"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Pool marks (issue 24): before a pool grants above the mark the cluster holds for it, the node
// publishes a new mark through Raft, the end of the run of pool numbers the grant came from
// (one publication per segment of the pool, about one per refill). At start no pool grants
// until the node has read its record through the leader's log: numbers at or below a mark leave
// the pools, and a pool of a tag the cluster never reserved to this member is forgotten. So a
// pools file put back from an older copy, or left by another identity, costs a gap, never a
// repeat. A node cut off from the majority keeps granting from its pools (issue 15): a mark it
// cannot publish waits at most raiseWait, then is published in the background when a leader
// answers; docs/DESIGN.md (Rollback) says what that leaves open.

// poolProgress is what marking needs of the store besides HiLoPools (hilopool.Store).
type poolProgress interface {
	HiLoPools
	Keys() []hilopool.Key
	FileDigest() ([]byte, error)
	RunEnd(key hilopool.Key, n int64) int64
	DropThrough(key hilopool.Key, mark int64) error
	Forget(key hilopool.Key) error
}

// markedPools is the node's pools as the server grants from them.
type markedPools struct {
	poolProgress
	s *Server
	// checked is closed once the pools read at start were checked against the cluster's
	// record; grants wait for it until startWait after Start has passed (gaveUp), then go
	// through the cluster until it is.
	checked, gaveUp chan struct{}
	publisher

	mu        sync.Mutex
	published map[hilopool.Key]int64 // the cluster's marks, as last answered
	wanted    map[hilopool.Key]int64 // marks still to publish
}

func newMarkedPools(s *Server, p poolProgress) *markedPools {
	return &markedPools{poolProgress: p, s: s, publisher: newPublisher(), checked: make(chan struct{}), gaveUp: make(chan struct{}),
		published: make(map[hilopool.Key]int64), wanted: make(map[hilopool.Key]int64)}
}

// Grant grants from the pool once it is checked, and marks the pool before answering. Before,
// it grants nothing: the caller reserves through the cluster.
func (m *markedPools) Grant(key hilopool.Key, grantID string, want, least, above int64) (low, high int64, ok bool, err error) {
	if !m.ready() {
		return 0, 0, false, nil
	}
	low, high, ok, err = m.poolProgress.Grant(key, grantID, want, least, above)
	if err == nil && ok {
		m.cover(folded(key), high)
	}
	return low, high, ok, err
}

// Return gives a tail back only to a checked pool.
func (m *markedPools) Return(key hilopool.Key, grantID string, end, last int64) (bool, error) {
	if !m.ready() {
		return false, nil
	}
	return m.poolProgress.Return(key, grantID, end, last)
}

// cover makes the cluster's mark of key reach high, publishing a new one if it does not.
func (m *markedPools) cover(key hilopool.Key, high int64) {
	m.mu.Lock()
	if high <= m.published[key] {
		m.mu.Unlock()
		return
	}
	m.wanted[key] = max(m.wanted[key], m.RunEnd(key, high))
	m.mu.Unlock()
	m.soon(m.publish)
}

// publish sends every wanted mark and keeps the cluster's answer.
func (m *markedPools) publish(ctx context.Context) error {
	m.mu.Lock()
	marks := make([]*raftv1.PoolMark, 0, len(m.wanted))
	for k, v := range m.wanted {
		marks = append(marks, &raftv1.PoolMark{Database: k.Database, Tag: k.Tag, Granted: v})
	}
	m.mu.Unlock()
	res, err := m.s.publishReservations(ctx, &raftv1.LocalReservations{Pools: marks})
	if m.outcome(err) != nil {
		return err
	}
	m.recorded(res)
	return nil
}

// recorded keeps the cluster's marks from an answer, and forgets the wanted marks they cover.
func (m *markedPools) recorded(res fsm.Reservations) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range res.Pools {
		key := hilopool.Key{Database: k.Database, Tag: k.Tag}
		m.published[key] = max(m.published[key], v)
		if m.wanted[key] <= v {
			delete(m.wanted, key)
		}
	}
}

// run checks the pools read at start against the cluster's record, then publishes marks the
// grants could not, until ctx ends.
func (m *markedPools) run(ctx context.Context) {
	// Not stopped with ctx: a grant that arrives while the server closes must not wait for ever.
	time.AfterFunc(startWait, func() { close(m.gaveUp) })
	backoff := firstBackoff
	for ctx.Err() == nil {
		var err error
		switch {
		case !isReady(m.checked):
			err = m.check(ctx)
		case m.pending():
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = m.publish(pctx)
			cancel()
		default:
			m.idle(ctx)
			continue
		}
		if err == nil {
			backoff = firstBackoff
			continue
		}
		m.s.log.Debug("HiLo pool marks", "err", err)
		backoff = backOff(ctx, backoff)
	}
}

// check reads this node's record through the leader's log (the answer comes after every
// earlier publication) and drops from each pool what an earlier run may have granted.
//
// A pools file the node sealed at its last clean stop (the record holds its digest) is that
// very file, not an older copy: its pools stay whole, returned tails included. The seal is
// cleared in the same entry, so a copy of that file put back later is checked like any other.
func (m *markedPools) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	digest, err := m.FileDigest()
	if err != nil {
		return err
	}
	res, err := m.s.publishReservations(ctx, &raftv1.LocalReservations{Unseal: digest})
	if m.outcome(err) != nil {
		return err
	}
	m.recorded(res)
	if res.SealMatched {
		close(m.checked)
		return nil
	}
	for _, key := range m.Keys() {
		// A tag the cluster never reserved to this member (as far as this replica has applied,
		// which may lag: then the pool is dropped too, a gap) is not this node's pool.
		if m.s.node.FSM().HiLoPools(key.Database, key.Tag)[m.s.node.ID()] == 0 {
			if err := m.Forget(key); err != nil {
				return err
			}
			m.s.log.Warn("dropped a HiLo pool the cluster never reserved to this node", "database", key.Database, "tag", key.Tag)
			continue
		}
		m.mu.Lock()
		mark := m.published[key]
		m.mu.Unlock()
		if err := m.DropThrough(key, mark); err != nil {
			return err
		}
	}
	close(m.checked)
	return nil
}

// seal records, at a clean stop, the digest of the pools file as the node leaves it, so the
// next start keeps its pools whole. Only pools this run checked are sealed, and only once no
// grant or top-up can change them any more (Server.Close).
func (m *markedPools) seal() {
	if !isReady(m.checked) {
		return
	}
	digest, err := m.FileDigest()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), raiseWait)
		defer cancel()
		_, err = m.s.publishReservations(ctx, &raftv1.LocalReservations{Seal: digest})
	}
	if err != nil {
		m.s.log.Warn("the HiLo pools are not sealed: the next start drops the numbers their marks cover (gaps)", "err", err)
	}
}

// ready waits for the start check, at most until startWait after Start, and reports whether
// it is done.
func (m *markedPools) ready() bool {
	select {
	case <-m.checked:
		return true
	case <-m.gaveUp:
		return isReady(m.checked)
	}
}

func (m *markedPools) pending() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.wanted) > 0
}

// folded is key as the FSM and the store name it: database canonical, tag in lower case.
func folded(key hilopool.Key) hilopool.Key {
	return hilopool.Key{Database: fsm.DatabaseName(key.Database), Tag: strings.ToLower(key.Tag)}
}
