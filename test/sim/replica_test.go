package sim

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// bug is a deliberate bug of n3's replica, which shows the simulator catches a replica going
// its own way: n3 answers the command but keeps nothing of it.
type bug struct {
	// forgets is the command n3 forgets: HiLo grants or series issues (0: no bug).
	forgets fsm.CommandType
	// leading: only the commands n3 applies while it leads. Whether a run meets it then
	// depends on which node raft elects when, which the seed does not decide.
	leading bool
}

var noBug bug

// parseBug reads the value of -sim.forget-hilo or -sim.forget-series: "" (no bug), always
// or leading.
func parseBug(flagName, value string, forgets fsm.CommandType) (bug, error) {
	switch value {
	case "":
		return noBug, nil
	case "always":
		return bug{forgets: forgets}, nil
	case "leading":
		return bug{forgets: forgets, leading: true}, nil
	}
	return noBug, fmt.Errorf("-%s is %q, not always or leading", flagName, value)
}

// forgetfulNode is the node a bug is given to: n3.
const forgetfulNode = 2

// replica is the FSM raft applies to. When forgets says so for a command of the kind the bug
// names, it answers the command and keeps nothing: a HiLo grant's state is put back as it was
// before, and a series issue never reaches the journal.
type replica struct {
	*fsm.FSM
	command fsm.CommandType
	forgets func() bool
}

func (r *replica) Apply(l *raft.Log) any {
	if !r.forgetting(l) {
		return r.FSM.Apply(l)
	}
	if r.command == fsm.SeriesIssueBatchCommand {
		return r.issueWithoutKeeping(l)
	}
	before, err := snapshotBytes(r.FSM)
	if err != nil {
		return fmt.Errorf("the forgetful replica cannot snapshot: %w", err)
	}
	out := r.FSM.Apply(l)
	if err := r.FSM.Restore(io.NopCloser(bytes.NewReader(before))); err != nil {
		return fmt.Errorf("the forgetful replica cannot restore: %w", err)
	}
	return out
}

// issueWithoutKeeping answers a batch of series issues with the numbers after each series'
// head, as the journal would, and applies a batch of no issues in its place: the journal
// stays as it was, and the next issue gets the same number again. (A snapshot and restore,
// as for HiLo, would not do: a restore keeps a journal that is ahead of the snapshot.)
func (r *replica) issueWithoutKeeping(l *raft.Log) any {
	var b raftv1.SeriesIssueBatch
	if err := proto.Unmarshal(l.Data[1:], &b); err != nil {
		return fmt.Errorf("the forgetful replica cannot decode a series issue: %w", err)
	}
	empty, err := fsm.Encode(fsm.SeriesIssueBatchCommand, &raftv1.SeriesIssueBatch{ProposedAtMs: b.GetProposedAtMs()})
	if err != nil {
		return err
	}
	instead := *l
	instead.Data = empty
	r.FSM.Apply(&instead)
	store, err := r.FSM.Series()
	if err != nil {
		return err
	}
	out := fsm.SeriesIssued{Results: make([]series.IssueResult, len(b.GetIssues()))}
	last := map[string]int64{}
	for k, is := range b.GetIssues() {
		def, err := store.Definition(is.GetDatabase(), is.GetSeries())
		if err != nil {
			out.Results[k].Err = err
			continue
		}
		key := is.GetDatabase() + "\x00" + is.GetSeries()
		if _, ok := last[key]; !ok {
			last[key] = def.GetLastNumber()
		}
		last[key]++
		out.Results[k].Entry = &raftv1.SeriesEntry{Database: is.GetDatabase(), Series: def.GetName(), Kind: raftv1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED,
			Period: def.GetCurrentPeriod(), Number: last[key], RequestId: is.GetRequestId()}
	}
	return out
}

func (r *replica) ApplyBatch(logs []*raft.Log) []any {
	if r.forgets == nil {
		return r.FSM.ApplyBatch(logs)
	}
	out := make([]any, len(logs))
	for i, l := range logs {
		out[i] = r.Apply(l)
	}
	return out
}

func (r *replica) forgetting(l *raft.Log) bool {
	return r.forgets != nil && l.Type == raft.LogCommand && len(l.Data) > 0 && fsm.CommandType(l.Data[0]) == r.command && r.forgets()
}
