package sim

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
)

// bug is a deliberate bug of n3's replica, which shows the simulator catches a replica going
// its own way.
type bug string

const (
	noBug = bug("")
	// forgetHiLo: n3 answers every HiLo grant but keeps none; its Max stays where it was, so
	// that while it leads it grants numbers the others granted already.
	forgetHiLo = bug("always")
	// forgetHiLoLeading: the same, but only the grants n3 applies while it leads. Whether a
	// run meets it depends on which node raft elects when, which the seed does not decide.
	forgetHiLoLeading = bug("leading")
)

// forgetfulNode is the node a bug is given to: n3.
const forgetfulNode = 2

// replica is the FSM raft applies to. When forgets is set and says so, it answers a HiLo
// grant and then puts its state back as it was before.
type replica struct {
	*fsm.FSM
	forgets func() bool
}

func (r *replica) Apply(l *raft.Log) any {
	if !r.forgetting(l) {
		return r.FSM.Apply(l)
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
	return r.forgets != nil && l.Type == raft.LogCommand && len(l.Data) > 0 && fsm.CommandType(l.Data[0]) == fsm.HiLoGrantCommand && r.forgets()
}
