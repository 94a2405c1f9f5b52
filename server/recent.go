package server

import "github.com/idnode/idnode/internal/history"

// Issued counts the IDs this node handed out since it started, by strategy, as Status says
// them (the console's graph of IDs per second samples it).
func (s *Server) Issued() map[string]uint64 { return s.intercept.issued.snapshot() }

// LeaderMarks are the leadership changes this node saw in the last hour, as Status lists
// them, for Status and for the console's graphs to mark on their time axis.
func (s *core) LeaderMarks() []history.Mark {
	changes := s.node.LeaderChanges()
	marks := make([]history.Mark, len(changes))
	for i, c := range changes {
		marks[i] = history.Mark{AtMs: c.At.UnixMilli(), Term: c.Term}
		if c.LeaderID != "" {
			marks[i].Leader = s.tagOf(c.LeaderID)
		}
	}
	return marks
}
