package sim

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
)

// replica is the FSM raft applies to. With forgetHiLo set it answers every HiLo grant but
// keeps none: its Max stays where it was, so that while it leads it grants numbers the others
// granted already. That is the deliberate bug that shows the simulator catches a replica
// going its own way.
type replica struct {
	*fsm.FSM
	forgetHiLo bool
}

func (r *replica) Apply(l *raft.Log) any {
	if !r.forgets(l) {
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
	if !r.forgetHiLo {
		return r.FSM.ApplyBatch(logs)
	}
	out := make([]any, len(logs))
	for i, l := range logs {
		out[i] = r.Apply(l)
	}
	return out
}

func (r *replica) forgets(l *raft.Log) bool {
	return r.forgetHiLo && l.Type == raft.LogCommand && len(l.Data) > 0 && fsm.CommandType(l.Data[0]) == fsm.HiLoGrantCommand
}
