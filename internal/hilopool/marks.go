package hilopool

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/idnode/idnode/internal/publication"
)

// Pool marks: before a pool grants above the mark the cluster holds for it, the node
// publishes a new mark through Raft, the end of the run of pool numbers the grant came from
// (one publication per segment of the pool, about one per refill). At start no pool grants
// until the node has read its record through the leader's log: numbers at or below a mark leave
// the pools, and a pool read at start of a tag the cluster never reserved to this member is
// forgotten. So a pools file put back from an older copy, or left by another identity, costs a
// gap, never a repeat. A node cut off from the majority keeps granting from its pools: a mark it
// cannot publish waits at most publication.RaiseWait, then is published in the background when
// a leader answers; docs/DESIGN.md (Rollback) says what that leaves open.

// Markable is what marking needs of the store (Store) besides Pools.
type Markable interface {
	Pools
	Keys() []Key
	FileDigest() ([]byte, error)
	RunEnd(key Key, n int64) int64
	DropThrough(key Key, mark int64) error
	Forget(key Key) error
}

// Record is the cluster's record of this node's pools, read and written through the leader's
// log; every answer comes after every earlier publication. Marks are, per pool, the highest
// number this node may have granted from it.
type Record interface {
	// Publish records marks and returns the record's marks after it.
	Publish(ctx context.Context, marks map[Key]int64) (map[Key]int64, error)
	// Unseal clears the record's seal and returns its marks, and whether the seal was digest.
	Unseal(ctx context.Context, digest []byte) (marks map[Key]int64, sealMatched bool, err error)
	// Seal records digest as the pools file's at a clean stop.
	Seal(ctx context.Context, digest []byte) error
	// Reserved reports whether the cluster reserved numbers of key's tag to this member, as
	// far as this replica has applied.
	Reserved(key Key) bool
	// Fold is key as the record names it.
	Fold(key Key) Key
}

// Marked is the node's pools as the server grants from them: a Markable store whose grants
// the cluster's record covers.
type Marked struct {
	Markable
	record Record
	log    *slog.Logger
	// checked is closed once the pools read at start were checked against the cluster's
	// record; grants wait for it until StartWait after Run has started (gaveUp), then go
	// through the cluster until it is.
	checked, gaveUp chan struct{}
	pub             publication.Publisher

	// readAtStart is the pools the store held when the node started: the ones the start
	// check may find are not this node's. A pool made later holds only numbers this run
	// reserved through the log.
	readAtStart map[Key]bool

	mu        sync.Mutex
	published map[Key]int64 // the cluster's marks, as last answered
	wanted    map[Key]int64 // marks still to publish
}

// NewMarked returns store behind record's marks; Run checks it and publishes the marks.
func NewMarked(store Markable, record Record, log *slog.Logger) *Marked {
	m := &Marked{Markable: store, record: record, log: log, pub: publication.New(), checked: make(chan struct{}), gaveUp: make(chan struct{}),
		readAtStart: make(map[Key]bool), published: make(map[Key]int64), wanted: make(map[Key]int64)}
	for _, key := range store.Keys() {
		m.readAtStart[key] = true
	}
	return m
}

// Grant grants from the pool once it is checked, and marks the pool before answering. Before,
// it grants nothing: the caller reserves through the cluster.
func (m *Marked) Grant(key Key, grantID string, want, least, above int64) (low, high int64, ok bool, err error) {
	if !m.ready() {
		return 0, 0, false, nil
	}
	low, high, ok, err = m.Markable.Grant(key, grantID, want, least, above)
	if err == nil && ok {
		m.cover(m.record.Fold(key), high)
	}
	return low, high, ok, err
}

// Return gives a tail back only to a checked pool.
func (m *Marked) Return(key Key, grantID string, end, last int64) (bool, error) {
	if !m.ready() {
		return false, nil
	}
	return m.Markable.Return(key, grantID, end, last)
}

// cover makes the cluster's mark of key reach high, publishing a new one if it does not.
func (m *Marked) cover(key Key, high int64) {
	m.mu.Lock()
	if high <= m.published[key] {
		m.mu.Unlock()
		return
	}
	m.wanted[key] = max(m.wanted[key], m.RunEnd(key, high))
	m.mu.Unlock()
	m.pub.Soon(m.publish)
}

// publish sends every wanted mark and keeps the cluster's answer.
func (m *Marked) publish(ctx context.Context) error {
	m.mu.Lock()
	marks := maps.Clone(m.wanted)
	m.mu.Unlock()
	res, err := m.record.Publish(ctx, marks)
	if m.pub.Outcome(err) != nil {
		return err
	}
	m.recorded(res)
	return nil
}

// recorded keeps the cluster's marks from an answer, and forgets the wanted marks they cover.
func (m *Marked) recorded(marks map[Key]int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, v := range marks {
		m.published[key] = max(m.published[key], v)
		if m.wanted[key] <= v {
			delete(m.wanted, key)
		}
	}
}

// Run checks the pools read at start against the cluster's record, then publishes marks the
// grants could not, until ctx ends.
func (m *Marked) Run(ctx context.Context) {
	// Not stopped with ctx: a grant that arrives while the server closes must not wait for ever.
	time.AfterFunc(publication.StartWait, func() { close(m.gaveUp) })
	backoff := publication.FirstBackoff
	for ctx.Err() == nil {
		var err error
		switch {
		case !publication.Closed(m.checked):
			err = m.check(ctx)
		case m.pending():
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = m.publish(pctx)
			cancel()
		default:
			m.pub.Idle(ctx)
			continue
		}
		if err == nil {
			backoff = publication.FirstBackoff
			continue
		}
		m.log.Debug("HiLo pool marks", "err", err)
		backoff = publication.BackOff(ctx, backoff)
	}
}

// check reads this node's record through the leader's log (the answer comes after every
// earlier publication) and drops from each pool what an earlier run may have granted.
//
// A pools file the node sealed at its last clean stop (the record holds its digest) is that
// very file, not an older copy: its pools stay whole, returned tails included. The seal is
// cleared in the same entry, so a copy of that file put back later is checked like any other.
func (m *Marked) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	digest, err := m.FileDigest()
	if err != nil {
		return err
	}
	marks, sealMatched, err := m.record.Unseal(ctx, digest)
	if m.pub.Outcome(err) != nil {
		return err
	}
	m.recorded(marks)
	if sealMatched {
		close(m.checked)
		return nil
	}
	for _, key := range m.Keys() {
		// A pool read at start of a tag the cluster never reserved to this member (as far as
		// this replica has applied, which may lag: then the pool is dropped too, a gap) is not
		// this node's pool. A pool first made in this run is: the cluster reserved its numbers
		// to this node through the log, and a replica that has not applied that yet would
		// otherwise drop the pool a cut-off needs.
		if m.readAtStart[key] && !m.record.Reserved(key) {
			if err := m.Forget(key); err != nil {
				return err
			}
			m.log.Warn("dropped a HiLo pool the cluster never reserved to this node", "database", key.Database, "tag", key.Tag)
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

// Seal records, at a clean stop, the digest of the pools file as the node leaves it, so the
// next start keeps its pools whole. Only pools this run checked are sealed, and only once no
// grant or top-up can change them any more (server.Server.Close).
func (m *Marked) Seal() {
	if !publication.Closed(m.checked) {
		return
	}
	digest, err := m.FileDigest()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), publication.RaiseWait)
		defer cancel()
		err = m.record.Seal(ctx, digest)
	}
	if err != nil {
		m.log.Warn("the HiLo pools are not sealed: the next start drops the numbers their marks cover (gaps)", "err", err)
	}
}

// ready waits for the start check, at most until StartWait after Run started, and reports
// whether it is done.
func (m *Marked) ready() bool {
	select {
	case <-m.checked:
		return true
	case <-m.gaveUp:
		return publication.Closed(m.checked)
	}
}

func (m *Marked) pending() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.wanted) > 0
}
