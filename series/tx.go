package series

import (
	"fmt"

	"go.etcd.io/bbolt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Tx is one bbolt write transaction over a batch of raft log entries: the batch costs one
// fsync. Only one is open at a time (bbolt serialises them); reads go on beside it.
type Tx struct {
	s       *Store
	h       *handle
	tx      *bbolt.Tx
	applied uint64 // raft index of the last command applied, this tx's included
	moved   bool   // applied moved in this tx
	open    map[string]*openSeries
}

// openSeries is a series a Tx touched: its bucket, and its head, written back at Commit.
type openSeries struct {
	b      *bbolt.Bucket
	def    *raftv1.SeriesDefinition
	format format
	dirty  bool
}

// IssueResult answers one issue of a batch.
type IssueResult struct {
	Entry *raftv1.SeriesEntry
	Err   error
}

// Begin opens the write transaction of a batch of log entries.
func (s *Store) Begin() (*Tx, error) {
	h, err := s.acquire()
	if err != nil {
		return nil, err
	}
	tx, err := h.db.Begin(true)
	if err != nil {
		s.release(h)
		return nil, fmt.Errorf("series: begin: %w", err)
	}
	return &Tx{s: s, h: h, tx: tx, applied: readApplied(tx), open: make(map[string]*openSeries)}, nil
}

// Commit writes the heads of the series touched and the applied index, and syncs.
func (tx *Tx) Commit() error {
	defer tx.s.release(tx.h)
	for _, o := range tx.open {
		if !o.dirty {
			continue
		}
		v, err := marshal.Marshal(o.def)
		if err == nil {
			err = o.b.Put(keyDef, v)
		}
		if err != nil {
			_ = tx.tx.Rollback()
			return fmt.Errorf("series: write the head of %q: %w", o.def.GetName(), err)
		}
	}
	if tx.moved {
		if err := putApplied(tx.tx, tx.applied); err != nil {
			_ = tx.tx.Rollback()
			return fmt.Errorf("series: write the applied index: %w", err)
		}
	}
	if err := tx.tx.Commit(); err != nil {
		return fmt.Errorf("series: commit: %w", err)
	}
	return nil
}

// Rollback drops everything the transaction did.
func (tx *Tx) Rollback() {
	_ = tx.tx.Rollback()
	tx.s.release(tx.h)
}

// apply reports whether the command at index is new, and moves the applied index to it. A
// command at or below it is a replay: raft re-applies entries after a restart from an older
// snapshot, and the journal already holds what they did (or that they failed).
func (tx *Tx) apply(index uint64) bool {
	if index <= tx.applied {
		return false
	}
	tx.applied, tx.moved = index, true
	return true
}

// series opens a series for writing once per transaction.
func (tx *Tx) series(db, name string) (*openSeries, error) {
	key := string(seriesKey(db, name))
	if o := tx.open[key]; o != nil {
		return o, nil
	}
	b, err := seriesBucket(tx.tx, db, name)
	if err != nil {
		return nil, err
	}
	def, err := readDefinition(b)
	if err != nil {
		return nil, err
	}
	f, err := parseFormat(def.GetFormat(), def.GetPeriod())
	if err != nil {
		return nil, fmt.Errorf("%w: the stored format of %q: %v", ErrCorrupt, name, err)
	}
	o := &openSeries{b: b, def: def, format: f}
	tx.open[key] = o
	return o, nil
}

// append adds the next entry of a series: its seq, chain link and hash, and its request id.
// The caller updates the numbering.
func (o *openSeries) append(e *raftv1.SeriesEntry) error {
	e.Database, e.Series = o.def.GetDatabase(), o.def.GetName()
	e.Seq = o.def.GetEntries() + 1
	e.PrevHash = o.def.GetHeadHash()
	e.Hash = entryHash(e)
	v, err := marshal.Marshal(e)
	if err != nil {
		return fmt.Errorf("series: encode entry %d: %w", e.Seq, err)
	}
	if err := o.b.Bucket(bucketEntries).Put(seqKey(e.Seq), v); err != nil {
		return fmt.Errorf("series: write entry %d: %w", e.Seq, err)
	}
	if err := o.b.Bucket(bucketRequests).Put([]byte(e.RequestId), seqKey(e.Seq)); err != nil {
		return fmt.Errorf("series: write request of entry %d: %w", e.Seq, err)
	}
	o.def.Entries, o.def.HeadHash, o.def.ClockMs = e.Seq, e.Hash, e.TimeMs
	o.dirty = true
	return nil
}

// byRequest is the entry a request id made in the series, or nil.
func byRequest(b *bbolt.Bucket, requestID string) (*raftv1.SeriesEntry, error) {
	v := b.Bucket(bucketRequests).Get([]byte(requestID))
	if v == nil {
		return nil, nil
	}
	seq, err := decodeSeq(v)
	if err != nil {
		return nil, err
	}
	e, err := entryAt(b, seq)
	if err == nil && e == nil {
		err = fmt.Errorf("%w: request %q points at entry %d, which is missing", ErrCorrupt, requestID, seq)
	}
	return e, err
}

// replayed answers a replayed command that made an entry with its request id.
func (tx *Tx) replayed(db, name, requestID string) (*raftv1.SeriesEntry, error) {
	b, err := seriesBucket(tx.tx, db, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReplayed, err)
	}
	e, err := byRequest(b, requestID)
	if err == nil && e == nil {
		err = fmt.Errorf("%w: no entry of request %q", ErrReplayed, requestID)
	}
	return e, err
}

// nextNumber returns the number the series issues next at time timeMs, and its period.
func (o *openSeries) nextNumber(timeMs int64) (string, int64, error) {
	period := periodKey(o.def.GetPeriod(), timeMs)
	if period != o.def.GetCurrentPeriod() {
		return period, 1, nil
	}
	last := o.def.GetLastNumber()
	if last == maxNumber {
		return "", 0, fmt.Errorf("%w: %q issued %d in period %q", ErrNumberOverflow, o.def.GetName(), last, period)
	}
	return period, last + 1, nil
}

// maxNumber is the largest number a period can hold.
const maxNumber = 1<<63 - 1
