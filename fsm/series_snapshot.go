package fsm

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// journalStream writes the series journal as captured by Snapshot: read from the store's
// point-in-time view while the FSM goes on applying, so memory stays flat in its length.
type journalStream struct{ c *series.Capture }

func (js journalStream) write(rw *recordWriter) error {
	return js.c.Write(func(m proto.Message) error {
		switch m.(type) {
		case *raftv1.SeriesJournalRecord:
			return rw.record(seriesJournalRecord, m)
		case *raftv1.SeriesDefinition:
			return rw.record(seriesDefinitionRecord, m)
		case *raftv1.SeriesEntry:
			return rw.record(seriesEntryRecord, m)
		}
		return fmt.Errorf("the series journal wrote a %T into a snapshot", m)
	})
}

// journalRestorers put a snapshot's series records into r, or skip them when r is nil.
func journalRestorers(r *series.Restorer) map[recordType]func(*state, []byte) error {
	skip := func(*state, []byte) error { return nil }
	if r == nil {
		return map[recordType]func(*state, []byte) error{seriesJournalRecord: skip, seriesDefinitionRecord: skip, seriesEntryRecord: skip}
	}
	entry := into(r.Entry)
	return map[recordType]func(*state, []byte) error{
		seriesJournalRecord:    into(r.Journal),
		seriesDefinitionRecord: into(r.Definition),
		seriesEntryRecord: func(st *state, data []byte) error {
			if r.SkipsEntries() { // a restart: the local journal holds them
				return nil
			}
			return entry(st, data)
		},
	}
}

// into works like decoded, for records that put sends somewhere outside the state: to the
// series store, or to a backup's series.
func into[M any, PM interface {
	*M
	proto.Message
}](put func(PM) error) func(*state, []byte) error {
	return decoded(func(_ *state, m PM) error { return put(m) })
}
