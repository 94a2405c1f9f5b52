package fsm

import (
	"fmt"
	"sync"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// Fiscal series. Their journals do not live in the state: they grow for ever, so
// package series keeps them on disk (series.db) and the FSM applies series commands to it, one
// write transaction per batch of entries (one fsync), and streams it into snapshots. A series
// command's answer is the journal's: the same on every replica, since the journal is a
// function of the log.

// journal is the FSM's handle on the series store: the store, and the write transaction that
// holds the entries applied since the last flush.
//
// The journal trails the log. Its writes are committed (one fsync) every journalFlushEvery
// applies, and before anything reads it: a snapshot, a backup, a read of the store (Series),
// a restore and the node's close. An answer therefore waits for the log's fsync only, as an
// identity's does, and the log is what makes it durable: after a crash the journal holds a
// committed prefix of the log (bbolt commits are atomic), and raft applies the entries after
// it again, which the store recognises by index. A snapshot never gets ahead of the journal,
// since it flushes first, so the log it compacts is always in the journal.
type journal struct {
	store *series.Store
	tx    *series.Tx
	// index is the log index of the entry being applied; the store skips an entry it holds.
	index uint64
	// err is a write the store could not make in this batch: the FSM halts after the batch.
	err error
	// applies counts the applies whose entries tx holds.
	applies int
	// flushMu makes a flush whole: a reader's flush returns once every entry applied before
	// it is committed, even when another flush took the transaction first.
	flushMu sync.Mutex
}

// journalFlushEvery is how many applies (each a raft batch of entries) the journal's write
// transaction holds before it is committed. Each commit costs bbolt two fsyncs; with one batch
// of issues in flight at a time, committing each batch put them on every issue's latency.
const journalFlushEvery = 32

// SeriesIssued answers a SeriesIssueBatch: one result per issue, in order.
type SeriesIssued struct {
	Results []series.IssueResult
}

// UseSeries gives the FSM the store that holds the series journals. Call it before raft
// starts; without one, series commands answer ErrNoJournal (tests of other commands).
func (f *FSM) UseSeries(s *series.Store) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.journal.store = s
}

// Series is the store of series journals, for reads (nil when the FSM has none). The
// entries applied so far are committed first, so the store holds every one.
func (f *FSM) Series() (*series.Store, error) {
	if err := f.FlushSeries(); err != nil {
		return nil, err
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.journal.store, nil
}

// FlushSeries commits the series entries applied since the last flush, outside the FSM's
// lock: the commit's fsync would otherwise stall every read of the state (each call's key
// check among them). Raft applies on one goroutine, and a flush from elsewhere takes the
// transaction under the lock, so no entry is half in it. When the journal cannot be written
// the FSM halts: going on would answer from a journal that lacks entries the log holds. The
// log keeps them, and the next start applies them again.
func (f *FSM) FlushSeries() error {
	j := f.journal
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	f.mu.Lock()
	w, index := j.take(), j.index
	f.mu.Unlock()
	err := w.commit()
	if err == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.halted {
		f.halt(Halt{Index: index, Err: err})
	}
	return fmt.Errorf("%w: %w", ErrHalted, err)
}

// begin is the write transaction of the entries since the last flush, begun by the first
// series command after it.
func (j *journal) begin() (*series.Tx, error) {
	if j.store == nil {
		return nil, ErrNoJournal
	}
	if j.err != nil {
		return nil, j.err
	}
	if j.tx == nil {
		tx, err := j.store.Begin()
		if err != nil {
			j.err = fmt.Errorf("%w: %v", ErrJournalWrite, err)
			return nil, j.err
		}
		j.tx = tx
	}
	return j.tx, nil
}

// fail records a write the store could not make; a refusal (bad input, a rule) is an answer
// instead, the same on every replica.
func (j *journal) fail(err error) error {
	if err != nil && !series.Refusal(err) && j.err == nil {
		j.err = fmt.Errorf("%w: %v", ErrJournalWrite, err)
	}
	return err
}

// due reports, after an apply, whether the journal's writes must be committed now: enough
// applies went into them, or a write failed and the FSM must halt.
func (j *journal) due() bool {
	if j.tx == nil && j.err == nil {
		return false
	}
	j.applies++
	return j.applies >= journalFlushEvery || j.err != nil
}

// journalWrites are the writes since the last flush, taken from the journal under the FSM's
// lock and committed after it is let go.
type journalWrites struct {
	tx  *series.Tx
	err error
}

// take hands over the writes and readies the journal for the next ones.
func (j *journal) take() journalWrites {
	w := journalWrites{tx: j.tx, err: j.err}
	j.tx, j.err, j.applies = nil, nil, 0
	return w
}

// commit commits the transaction. An error means the journal lacks entries the log
// holds: the FSM must halt, and a restart applies them again from the log.
func (w journalWrites) commit() error {
	switch {
	case w.tx == nil:
		return w.err
	case w.err != nil:
		w.tx.Rollback()
		return w.err
	}
	if err := w.tx.Commit(); err != nil {
		return fmt.Errorf("%w: %v", ErrJournalWrite, err)
	}
	return nil
}

func (st fiscalSeries) applyCreateSeries(c *raftv1.CreateSeries) any {
	if _, err := st.db(c.GetDatabase()); err != nil {
		return err
	}
	tx, err := st.journal.begin()
	if err != nil {
		return err
	}
	def, err := tx.Create(st.journal.index, c)
	if err != nil {
		return st.journal.fail(err)
	}
	return def
}

func (st fiscalSeries) applySeriesIssueBatch(b *raftv1.SeriesIssueBatch) any {
	out := SeriesIssued{Results: make([]series.IssueResult, len(b.GetIssues()))}
	live := make([]*raftv1.SeriesIssue, 0, len(b.GetIssues()))
	at := make([]int, 0, len(b.GetIssues()))
	for i, is := range b.GetIssues() {
		if _, err := st.db(is.GetDatabase()); err != nil {
			out.Results[i].Err = err
			continue
		}
		live = append(live, is)
		at = append(at, i)
	}
	if len(live) == 0 {
		return out
	}
	tx, err := st.journal.begin()
	if err != nil {
		return err
	}
	res := tx.Issue(st.journal.index, &raftv1.SeriesIssueBatch{Issues: live, ProposedAtMs: b.GetProposedAtMs()})
	for k, r := range res {
		st.journal.fail(r.Err)
		out.Results[at[k]] = r
	}
	return out
}

func (st fiscalSeries) applySeriesVoid(v *raftv1.SeriesVoid) any {
	if _, err := st.db(v.GetDatabase()); err != nil {
		return err
	}
	tx, err := st.journal.begin()
	if err != nil {
		return err
	}
	e, err := tx.Void(st.journal.index, v)
	if err != nil {
		return st.journal.fail(err)
	}
	return e
}

// applyRestoreSeries puts a chunk of a backup's series back into the journal (series.Tx.Restore).
// A database of the backup that this cluster lacks is created, as RaiseFloor creates it, once
// the command is well formed: what the state does may depend on the command and the state, not
// on the journal's answer, which a replay does not repeat.
func (st fiscalSeries) applyRestoreSeries(r *raftv1.RestoreSeries) any {
	if err := series.CheckRestore(r); err != nil {
		return err
	}
	tx, err := st.journal.begin()
	if err != nil {
		return err
	}
	st.dbForFloors(r.GetDefinition().GetDatabase())
	shut := st.finalised() >= restoringVersion
	// A chunk that ends short of the backup's head may shut its series, which a build before
	// restoringVersion would leave open: the log now holds a command of that version.
	if shut && restoreEndsShort(r) {
		st.versionUsed = max(st.versionUsed, restoringVersion)
	}
	res, err := tx.Restore(st.journal.index, r, shut)
	if err != nil {
		return st.journal.fail(err)
	}
	return res
}

// restoreEndsShort reports whether a RestoreSeries ends before its backup's last entry.
func restoreEndsShort(r *raftv1.RestoreSeries) bool {
	var last uint64
	if entries := r.GetEntries(); len(entries) > 0 {
		last = entries[len(entries)-1].GetSeq()
	}
	return last < r.GetDefinition().GetEntries()
}
