package sim

import (
	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
)

// replica is the FSM raft applies to. With forgetHiLo set it skips every HiLo grant: a
// replica whose Max falls behind the others', the deliberate bug that shows the simulator
// catches a divergent replica.
type replica struct {
	*fsm.FSM
	forgetHiLo bool
}

func (r *replica) Apply(l *raft.Log) any {
	if r.forgets(l) {
		return nil
	}
	return r.FSM.Apply(l)
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
