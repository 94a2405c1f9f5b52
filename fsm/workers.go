package fsm

import (
	"container/heap"
	"fmt"
	"math"
	"strings"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Worker leases: a client mints numeric IDs (time | worker | sequence) in-process
// under a worker ID it leases here. Two holders at once would mint the same IDs, and so would
// a holder minting at a time an earlier holder of the worker used. So each worker keeps its
// high-water, the highest time any of its holders may mint at, for ever; a worker is given
// again only once its lease lapsed by the log's clock, with a fencing epoch one higher, and its
// new holder mints strictly above the high-water. A holder's own clock never decides anything.

// Bounds of a worker lease call.
const (
	MinWorkerLeaseMs   = 1000
	MaxWorkerLeaseMs   = 60 * 60 * 1000
	MaxWorkerBits      = 22
	MaxWorkerHolderLen = 128
)

// NodeHolderPrefix begins the holder name of a node's own worker leases, "node:" and its tag:
// the minter behind Generate{numeric}. A client may not name a holder so (the server refuses
// it where a client's call arrives), and in a database whose numeric IDs are opaque only such a
// holder, of a registered node, gets a lease (nodeMinter): a client would mint without the key.
const NodeHolderPrefix = "node:"

// WorkerLease is a worker's lease as the FSM answers it.
type WorkerLease struct {
	Database string
	Worker   uint32
	// Epoch fences the lease: renewals and releases name it, and the next holder gets one more.
	Epoch  uint64
	Holder string
	// The holder mints at times (Unix ms) strictly above MinMs and up to MaxMs, the
	// worker's high-water.
	MinMs, MaxMs int64
	ExpiresAtMs  int64
}

// workerSet is a database's worker IDs: every worker ever leased (a lapsed worker keeps its
// high-water) and the layout. Workers are handed out from 0 up, so the next never-used one is
// len(leases).
type workerSet struct {
	bits   int32
	leases []workerLease // by worker ID
	// byExpiry and byHighWater are heaps of every worker ID, so that Acquire picks a worker in
	// O(log n) rather than by a scan. byExpiry orders them by (expiresAtMs, worker): its root
	// is the lease that lapsed first. byHighWater orders them by (highWaterMs, worker): its
	// root is the first worker whose every ID lies in the past.
	byExpiry, byHighWater []uint32
}

type workerLease struct {
	epoch                           uint64
	holder                          string
	minMs, expiresAtMs, highWaterMs int64
	expiryAt, highWaterAt           int // positions in byExpiry and byHighWater
}

// nodeMinter reports whether holder is a registered node's own minter's name: NodeHolderPrefix
// and the node's tag. It reads only the state, so every replica answers alike, and MakeOpaque
// refuses the numeric flag once a database has had any lease, so, whatever the order of the
// entries, no other holder's lease coexists with opaque numeric IDs.
func (st workerLeases) nodeMinter(holder string) bool {
	tag, ok := strings.CutPrefix(holder, NodeHolderPrefix)
	_, registered := st.nodes[tag]
	return ok && registered
}

func (st workerLeases) applyAcquireWorker(c *raftv1.AcquireWorker) any {
	st.requests.advanceClock(c.GetProposedAtMs())
	d, err := st.db(c.GetDatabase())
	if err != nil {
		return err
	}
	bits := c.GetWorkerBits()
	switch {
	case bits < 1 || bits > MaxWorkerBits:
		return fmt.Errorf("%w: worker_bits must be 1..%d, got %d", ErrInvalidWorkerLease, MaxWorkerBits, bits)
	case len(c.GetHolder()) > MaxWorkerHolderLen:
		return fmt.Errorf("%w: holder is %d bytes, at most %d", ErrInvalidWorkerLease, len(c.GetHolder()), MaxWorkerHolderLen)
	case d.workers != nil && d.workers.bits != bits:
		return fmt.Errorf("%w: the database's layout has %d worker bits, the call %d", ErrWorkerBitsDiffer, d.workers.bits, bits)
	}
	if err := checkLeaseMs(c.GetLeaseMs()); err != nil {
		return err
	}
	name := DatabaseName(c.GetDatabase())
	if d.opaqueNumeric() && !st.nodeMinter(c.GetHolder()) {
		return fmt.Errorf("%w: database %q has opaque numeric IDs, so only its nodes' own minters (holder %q and a registered node's tag) lease workers; the holder is %q",
			ErrOpaqueClientLease, name, NodeHolderPrefix, c.GetHolder())
	}
	if id := c.GetRequestId(); id != "" {
		if rec, ok := st.requests.lookup(c.GetDatabase(), id); ok {
			return d.workers.replay(name, rec, c)
		}
	}
	s, now := d.workers, st.requests.nowMs
	if s == nil {
		s = &workerSet{bits: bits} // the database's, once this call succeeds
	}
	w, err := s.pick(now)
	if err != nil {
		return err
	}
	reused := int(w) < len(s.leases)
	highWater := int64(0) // a worker never used has no history
	if reused {
		highWater = s.leases[w].highWaterMs
	}
	// The holder mints from the log's now on, and above anything an earlier holder may have
	// used: a client whose clock lags cannot mint below IDs the database already has.
	minMs := max(highWater, now-1, 0)
	// The lease covers lease_ms of minting time above minMs; from the log's now alone, a
	// worker released while its high-water was ahead would come with nothing to mint in.
	expires, err := leaseEnd(max(now, minMs), c.GetLeaseMs())
	if err != nil {
		return err
	}
	d.workers = s
	l := workerLease{epoch: 1, holder: c.GetHolder(), minMs: minMs, expiresAtMs: expires, highWaterMs: expires}
	if reused {
		old := s.leases[w]
		l.epoch, l.expiryAt, l.highWaterAt = old.epoch+1, old.expiryAt, old.highWaterAt
		s.leases[w] = l
		s.moved(w)
	} else {
		s.add(l)
	}
	if id := c.GetRequestId(); id != "" {
		st.requests.record(&raftv1.RequestRecord{
			RequestId: id, Database: recordName(name), Kind: requestKindWorker, Key: c.GetHolder(), Count: int64(bits),
			First: int64(w), Last: int64(l.epoch),
		})
	}
	return s.answer(name, w)
}

// pick returns the worker an Acquire gets at the log's time now. It prefers one whose
// high-water has passed (so its lease lapsed too), then the next one never used, then the one
// whose lease lapsed first; when there is none it returns ErrWorkersExhausted. The order
// matters to the new holder, who mints above the high-water: a worker released early has its
// high-water up to a lease ahead of the clock, and its next holder could mint nothing until the
// clock got there, while a holder of a never-used worker mints at once.
func (s *workerSet) pick(now int64) (uint32, error) {
	if len(s.byHighWater) > 0 {
		if w := s.byHighWater[0]; s.leases[w].highWaterMs <= now {
			return w, nil
		}
	}
	if len(s.leases) < 1<<s.bits {
		return uint32(len(s.leases)), nil
	}
	if w := s.byExpiry[0]; s.leases[w].expiresAtMs <= now {
		return w, nil
	}
	return 0, fmt.Errorf("%w: all %d workers of the %d-bit layout; the first lease lapses at %d (Unix ms)",
		ErrWorkersExhausted, len(s.leases), s.bits, s.leases[s.byExpiry[0]].expiresAtMs)
}

// replay answers a retried Acquire: the lease it got, as it stands now, while that lease is
// the worker's current one.
func (s *workerSet) replay(database string, rec *raftv1.RequestRecord, c *raftv1.AcquireWorker) any {
	if rec.GetKind() != requestKindWorker || rec.GetKey() != c.GetHolder() || rec.GetCount() != int64(c.GetWorkerBits()) {
		return ErrRequestIDReused
	}
	w, epoch := rec.GetFirst(), uint64(rec.GetLast())
	if s == nil || w < 0 || w >= int64(len(s.leases)) || s.leases[w].epoch != epoch {
		return fmt.Errorf("%w: the lease of request_id %q (worker %d, epoch %d) lapsed and the worker went to another holder", ErrWorkerLeaseLost, rec.GetRequestId(), w, epoch)
	}
	return s.answer(database, uint32(w))
}

func (st workerLeases) applyRenewWorker(c *raftv1.RenewWorker) any {
	st.requests.advanceClock(c.GetProposedAtMs())
	d, err := st.db(c.GetDatabase())
	if err != nil {
		return err
	}
	if err := checkLeaseMs(c.GetLeaseMs()); err != nil {
		return err
	}
	l, err := d.workers.held(c.GetWorker(), c.GetEpoch())
	if err != nil {
		return err
	}
	if l.epoch != c.GetEpoch() {
		return leaseLost(c.GetWorker(), c.GetEpoch(), l.epoch)
	}
	end, err := leaseEnd(st.requests.nowMs, c.GetLeaseMs())
	if err != nil {
		return err
	}
	// A lapsed lease nobody took since is renewed as it is: its holder's IDs stay below the
	// high-water, which only grows.
	l.expiresAtMs = max(l.expiresAtMs, end)
	l.highWaterMs = max(l.highWaterMs, l.expiresAtMs)
	d.workers.moved(c.GetWorker())
	return d.workers.answer(DatabaseName(c.GetDatabase()), c.GetWorker())
}

// applyReleaseWorker ends a lease at the log's now, so the worker is the next Acquire's at
// once; its high-water stays. A release of an earlier epoch changes nothing and succeeds: that
// lease is over (a retry of a release whose worker went to someone since).
func (st workerLeases) applyReleaseWorker(c *raftv1.ReleaseWorker) any {
	st.requests.advanceClock(c.GetProposedAtMs())
	d, err := st.db(c.GetDatabase())
	if err != nil {
		return err
	}
	l, err := d.workers.held(c.GetWorker(), c.GetEpoch())
	if err != nil {
		return err
	}
	switch {
	case c.GetEpoch() < l.epoch:
		return nil
	case c.GetEpoch() > l.epoch:
		return leaseLost(c.GetWorker(), c.GetEpoch(), l.epoch)
	}
	if now := st.requests.nowMs; now < l.expiresAtMs {
		l.expiresAtMs = now
		d.workers.moved(c.GetWorker())
	}
	return nil
}

// held returns the lease of worker that a renewal or release of epoch names. It returns an
// error for a worker outside the layout or one never leased.
func (s *workerSet) held(worker uint32, epoch uint64) (*workerLease, error) {
	switch {
	case worker >= 1<<MaxWorkerBits || s != nil && worker >= 1<<s.bits:
		return nil, fmt.Errorf("%w: worker %d is outside the database's layout", ErrInvalidWorkerLease, worker)
	case s == nil || int(worker) >= len(s.leases):
		return nil, fmt.Errorf("%w: worker %d was never leased (epoch %d)", ErrWorkerLeaseLost, worker, epoch)
	}
	return &s.leases[worker], nil
}

func leaseLost(worker uint32, epoch, current uint64) error {
	if epoch > current {
		return fmt.Errorf("%w: worker %d never had epoch %d (its current is %d)", ErrWorkerLeaseLost, worker, epoch, current)
	}
	return fmt.Errorf("%w: worker %d has epoch %d now, another holder's, not %d", ErrWorkerLeaseLost, worker, current, epoch)
}

func checkLeaseMs(ms int64) error {
	if ms < MinWorkerLeaseMs || ms > MaxWorkerLeaseMs {
		return fmt.Errorf("%w: lease_ms must be %d..%d, got %d", ErrInvalidWorkerLease, MinWorkerLeaseMs, MaxWorkerLeaseMs, ms)
	}
	return nil
}

// leaseEnd returns from + leaseMs, where leaseMs was checked already. It refuses an end past
// the largest int64, because a proposer's clock near it would otherwise wrap the lease into
// the past.
func leaseEnd(from, leaseMs int64) (int64, error) {
	if from > math.MaxInt64-leaseMs {
		return 0, fmt.Errorf("%w: proposed_at_ms %d plus lease_ms %d passes the largest time", ErrCounterOverflow, from, leaseMs)
	}
	return from + leaseMs, nil
}

func (s *workerSet) answer(database string, w uint32) WorkerLease {
	l := s.leases[w]
	return WorkerLease{Database: database, Worker: w, Epoch: l.epoch, Holder: l.holder, MinMs: l.minMs, MaxMs: l.highWaterMs, ExpiresAtMs: l.expiresAtMs}
}

// Workers lists the database's workers, every one ever leased, lapsed or not, by worker ID:
// at most 2^MaxWorkerBits of them.
func (f *FSM) Workers(database string) ([]WorkerLease, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	d, err := f.st.db(database)
	if err != nil || d.workers == nil {
		return nil, err
	}
	out := make([]WorkerLease, len(d.workers.leases))
	for w := range out {
		out[w] = d.workers.answer(DatabaseName(database), uint32(w))
	}
	return out, nil
}

// WorkersFrom returns a page of Workers: up to n of the database's workers from worker ID from
// on, and whether more follow.
func (f *FSM) WorkersFrom(database string, from uint32, n int) ([]WorkerLease, bool, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	d, err := f.st.db(database)
	if err != nil || d.workers == nil || int(from) >= len(d.workers.leases) || n < 1 {
		return nil, false, err
	}
	end := min(len(d.workers.leases), int(from)+n)
	out := make([]WorkerLease, 0, end-int(from))
	for w := int(from); w < end; w++ {
		out = append(out, d.workers.answer(DatabaseName(database), uint32(w)))
	}
	return out, end < len(d.workers.leases), nil
}

// restoreWorker puts a snapshot's worker record back. The records of a database come in
// worker order from 0 with one layout, as records writes them; anything else is a corrupt
// snapshot.
func (st workerLeases) restoreWorker(r *raftv1.WorkerRecord) error {
	d := st.dbForFloors(r.GetDatabase())
	if d.workers == nil {
		if bits := r.GetWorkerBits(); bits < 1 || bits > MaxWorkerBits {
			return fmt.Errorf("worker record of %q: worker_bits %d", r.GetDatabase(), bits)
		}
		d.workers = &workerSet{bits: r.GetWorkerBits()}
	}
	s := d.workers
	if r.GetWorkerBits() != s.bits || int(r.GetWorker()) != len(s.leases) || len(s.leases) >= 1<<s.bits {
		return fmt.Errorf("worker record of %q: worker %d (%d bits) out of order", r.GetDatabase(), r.GetWorker(), r.GetWorkerBits())
	}
	s.add(workerLease{epoch: r.GetEpoch(), holder: r.GetHolder(), minMs: r.GetMinMs(), expiresAtMs: r.GetExpiresAtMs(), highWaterMs: r.GetHighWaterMs()})
	return nil
}

// checkWorkerFloors checks a restore's worker records before any is applied: each well formed,
// in the layout of its database here (IDs of two layouts share no field boundaries, so no
// high-water could keep them apart), and in worker order, so that a worker this cluster lacks
// is the next one of its database. A database whose numeric IDs are opaque here takes only
// workers of a database whose numeric IDs were opaque in the backup's cluster too
// (opaqueNumeric names those): any other worker minted plain numeric IDs, which could equal
// this cluster's forms, and its holder could go on minting them here.
func (st workerLeases) checkWorkerFloors(recs []*raftv1.WorkerRecord, opaqueNumeric []string) error {
	type layout struct {
		bits int32
		next int
	}
	seen := map[string]*layout{}
	wasOpaque := make(map[string]bool, len(opaqueNumeric))
	for _, db := range opaqueNumeric {
		if err := docid.ValidateDatabaseRef(db); err != nil {
			return err
		}
		wasOpaque[DatabaseName(db)] = true
	}
	for _, rec := range recs {
		if err := docid.ValidateDatabaseRef(rec.GetDatabase()); err != nil {
			return err
		}
		bits, w := rec.GetWorkerBits(), int(rec.GetWorker())
		switch {
		case bits < 1 || bits > MaxWorkerBits || w >= 1<<bits:
			return fmt.Errorf("%w: restored worker %d of %q in a %d-bit layout", ErrInvalidWorkerLease, w, rec.GetDatabase(), bits)
		case len(rec.GetHolder()) > MaxWorkerHolderLen:
			return fmt.Errorf("%w: restored worker %d of %q: holder is %d bytes", ErrInvalidWorkerLease, w, rec.GetDatabase(), len(rec.GetHolder()))
		case rec.GetMinMs() < 0 || rec.GetExpiresAtMs() < 0 || rec.GetMinMs() > rec.GetHighWaterMs() || rec.GetExpiresAtMs() > rec.GetHighWaterMs():
			return fmt.Errorf("%w: restored worker %d of %q: min %d, expiry %d, high-water %d", ErrInvalidWorkerLease, w, rec.GetDatabase(), rec.GetMinMs(), rec.GetExpiresAtMs(), rec.GetHighWaterMs())
		}
		name := DatabaseName(rec.GetDatabase())
		l := seen[name]
		if l == nil {
			l = &layout{bits: bits}
			d := st.databases[name]
			if d.opaqueNumeric() && !wasOpaque[name] {
				return plainWorkersRefused(name)
			}
			if d != nil && d.workers != nil {
				l.bits, l.next = d.workers.bits, len(d.workers.leases)
			}
			seen[name] = l
		}
		switch {
		case bits != l.bits:
			return fmt.Errorf("%w: database %q has %d worker bits, the backup %d: restore it into a database with the backup's layout", ErrWorkerBitsDiffer, name, l.bits, bits)
		case w > l.next:
			return fmt.Errorf("%w: restored worker %d of %q before worker %d", ErrInvalidWorkerLease, w, name, l.next)
		case w == l.next:
			l.next++
		}
	}
	return nil
}

// raiseWorker puts a backup's worker into d (checked by checkWorkerFloors): a worker d lacks
// comes as the backup had it, so its holder there may go on renewing here; a worker d has
// keeps its lease, with the higher high-water, and when the backup's epoch is not below d's
// (and the lease is not the backup's own, restored before) a fresh epoch, fencing every holder
// of either cluster. It reports whether anything changed: restoring a backup twice changes
// nothing the second time.
func (d *database) raiseWorker(rec *raftv1.WorkerRecord) bool {
	if d.workers == nil {
		d.workers = &workerSet{bits: rec.GetWorkerBits()}
	}
	s, w := d.workers, rec.GetWorker()
	if int(w) == len(s.leases) {
		s.add(workerLease{epoch: rec.GetEpoch(), holder: rec.GetHolder(), minMs: rec.GetMinMs(), expiresAtMs: rec.GetExpiresAtMs(), highWaterMs: rec.GetHighWaterMs()})
		return true
	}
	l := &s.leases[w]
	changed := false
	if rec.GetHighWaterMs() > l.highWaterMs {
		l.highWaterMs, changed = rec.GetHighWaterMs(), true
	}
	sameLease := rec.GetEpoch() == l.epoch && rec.GetHolder() == l.holder && rec.GetMinMs() == l.minMs
	if rec.GetEpoch() >= l.epoch && !sameLease {
		l.epoch, changed = rec.GetEpoch()+1, true
	}
	s.moved(w)
	return changed
}

// workerRecords are one database's workers, copied at capture.
type workerRecords struct {
	database string
	bits     int32
	leases   []workerLease
}

func (s *workerSet) capture(rec string) *workerRecords {
	return &workerRecords{database: rec, bits: s.bits, leases: append([]workerLease(nil), s.leases...)}
}

func (wr *workerRecords) write(rw *recordWriter) error {
	msg := &raftv1.WorkerRecord{}
	for w := range wr.leases {
		wr.fill(msg, w)
		if err := rw.record(workerRecord, msg); err != nil {
			return err
		}
	}
	return nil
}

// messages are the records as messages of their own (a backup's, for RaiseFloor).
func (wr *workerRecords) messages() []*raftv1.WorkerRecord {
	out := make([]*raftv1.WorkerRecord, len(wr.leases))
	for w := range out {
		out[w] = &raftv1.WorkerRecord{}
		wr.fill(out[w], w)
	}
	return out
}

// fill makes msg worker w's record.
func (wr *workerRecords) fill(msg *raftv1.WorkerRecord, w int) {
	l := wr.leases[w]
	msg.Database, msg.WorkerBits, msg.Worker, msg.Epoch, msg.Holder = wr.database, wr.bits, uint32(w), l.epoch, l.holder
	msg.MinMs, msg.ExpiresAtMs, msg.HighWaterMs = l.minMs, l.expiresAtMs, l.highWaterMs
}

// add appends the next worker's lease and places it in both heaps.
func (s *workerSet) add(l workerLease) {
	w := uint32(len(s.leases))
	s.leases = append(s.leases, l)
	heap.Push(s.expiryHeap(), w)
	heap.Push(s.highWaterHeap(), w)
}

// moved puts worker w back in place in both heaps after its times changed.
func (s *workerSet) moved(w uint32) {
	heap.Fix(s.expiryHeap(), s.leases[w].expiryAt)
	heap.Fix(s.highWaterHeap(), s.leases[w].highWaterAt)
}

func (s *workerSet) expiryHeap() *workerHeap {
	return &workerHeap{s: s, ids: &s.byExpiry,
		key: func(l *workerLease) int64 { return l.expiresAtMs }, at: func(l *workerLease) *int { return &l.expiryAt }}
}

func (s *workerSet) highWaterHeap() *workerHeap {
	return &workerHeap{s: s, ids: &s.byHighWater,
		key: func(l *workerLease) int64 { return l.highWaterMs }, at: func(l *workerLease) *int { return &l.highWaterAt }}
}

// workerHeap is one of a workerSet's heaps as a container/heap: worker IDs ordered by a time
// of their lease (key), then by ID, each lease knowing its position (at).
type workerHeap struct {
	s   *workerSet
	ids *[]uint32
	key func(*workerLease) int64
	at  func(*workerLease) *int
}

func (h *workerHeap) Len() int { return len(*h.ids) }

func (h *workerHeap) Less(i, j int) bool {
	a, b := (*h.ids)[i], (*h.ids)[j]
	ka, kb := h.key(&h.s.leases[a]), h.key(&h.s.leases[b])
	return ka < kb || ka == kb && a < b
}

func (h *workerHeap) Swap(i, j int) {
	ids := *h.ids
	ids[i], ids[j] = ids[j], ids[i]
	*h.at(&h.s.leases[ids[i]]) = i
	*h.at(&h.s.leases[ids[j]]) = j
}

func (h *workerHeap) Push(x any) {
	w := x.(uint32)
	*h.at(&h.s.leases[w]) = len(*h.ids)
	*h.ids = append(*h.ids, w)
}

// Pop implements heap.Interface. The FSM never pops: no worker leaves a heap, because its
// high-water mark must stay.
func (h *workerHeap) Pop() any {
	ids := *h.ids
	w := ids[len(ids)-1]
	*h.ids = ids[:len(ids)-1]
	return w
}

func (d *database) workerCount() int {
	if d.workers == nil {
		return 0
	}
	return len(d.workers.leases)
}
