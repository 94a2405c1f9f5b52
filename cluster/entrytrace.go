package cluster

import (
	"time"

	"github.com/hashicorp/raft"
)

// EntryStage is a point a log entry passes on one node, for Config.OnEntry: the commit-round
// trace (bench_round_test.go in package server) joins the nodes' stages by log index.
type EntryStage int

// The stages of an entry, in the order one commit round passes them.
const (
	// EntryProposed is when the leader's Apply was called; told once it returns, with the
	// index raft gave the entry.
	EntryProposed EntryStage = iota
	// EntryDispatched is when the leader's raft loop took the entry from its queue and gave
	// it an index, before writing it (raft.Log.AppendedAt, which followers receive too).
	EntryDispatched
	// EntryStored is when the entry was appended to this node's log and fsynced.
	EntryStored
	// EntryApplying is when raft handed the entry to this node's FSM (after the commit).
	EntryApplying
	// EntryApplied is when this node's FSM had applied it.
	EntryApplied
	// EntryAnswered is when the leader's Apply returned the FSM's answer.
	EntryAnswered
)

// entryTrace tells Config.OnEntry of entries [first, last] reaching stage now; a nil
// entryTrace reads no clock.
type entryTrace func(stage EntryStage, first, last uint64, at time.Time)

func (t entryTrace) logs(stage EntryStage, logs []*raft.Log) {
	if t != nil && len(logs) > 0 {
		t(stage, logs[0].Index, logs[len(logs)-1].Index, time.Now())
	}
}

// stored tells of logs appended and fsynced on this node, and when the leader dispatched them.
func (t entryTrace) stored(logs []*raft.Log) {
	if t == nil || len(logs) == 0 {
		return
	}
	for _, l := range logs {
		t(EntryDispatched, l.Index, l.Index, l.AppendedAt)
	}
	t.logs(EntryStored, logs)
}
