package fsm

import (
	"fmt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// Fiscal series (issue 26). Their journals do not live in the state: they grow for ever, so
// package series keeps them on disk (series.db) and the FSM applies series commands to it, one
// write transaction per batch of entries (one fsync), and streams it into snapshots. A series
// command's answer is the journal's: the same on every replica, since the journal is a
// function of the log.

// journal is the FSM's handle on the series store: the store, and the write transaction open
// for the batch of entries being applied.
type journal struct {
	store *series.Store
	tx    *series.Tx
	// index is the log index of the entry being applied; the store skips an entry it holds.
	index uint64
	// err is a write the store could not make in this batch: the FSM halts after the batch.
	err error
}

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

// Series is the store of series journals, for reads (nil when the FSM has none).
func (f *FSM) Series() *series.Store {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.journal.store
}

// tx is the batch's write transaction, begun by the first series command of the batch.
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

// end commits the batch's transaction. An error means the journal lacks entries the log
// holds: the FSM must halt, and a restart applies them again from the log.
func (j *journal) end() error {
	tx := j.tx
	j.tx = nil
	err := j.err
	j.err = nil
	switch {
	case tx == nil:
		return err
	case err != nil:
		tx.Rollback()
		return err
	}
	if cerr := tx.Commit(); cerr != nil {
		return fmt.Errorf("%w: %v", ErrJournalWrite, cerr)
	}
	return nil
}

func (st *state) applyCreateSeries(c *raftv1.CreateSeries) any {
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

func (st *state) applySeriesIssueBatch(b *raftv1.SeriesIssueBatch) any {
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

func (st *state) applySeriesVoid(v *raftv1.SeriesVoid) any {
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
func (st *state) applyRestoreSeries(r *raftv1.RestoreSeries) any {
	if err := series.CheckRestore(r); err != nil {
		return err
	}
	tx, err := st.journal.begin()
	if err != nil {
		return err
	}
	st.dbForFloors(r.GetDefinition().GetDatabase())
	res, err := tx.Restore(st.journal.index, r)
	if err != nil {
		return st.journal.fail(err)
	}
	return res
}
