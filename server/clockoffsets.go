package server

import (
	"context"
	"time"
)

// ClockOffsets are the nodes' wall-clock offsets from the leader's, by tag, as Status gives
// them (each node's own last measurement, clock.go, from its answer to the reachability
// probe), for the console's graph of them: the graph, Status and idctl status agree. A node
// that has not measured yet, or does not answer within probeTimeout, is left out.
func (s *Server) ClockOffsets(ctx context.Context) map[string]time.Duration {
	st, err := s.cluster.statusLocal(ctx, nil)
	if err != nil {
		return nil
	}
	offsets := map[string]time.Duration{}
	for _, n := range st.GetNodes() {
		if n.GetClockOffsetMeasured() {
			offsets[n.GetTag()] = time.Duration(n.GetClockOffsetSeconds() * float64(time.Second))
		}
	}
	return offsets
}
