package fsm

import (
	"fmt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// A fence is the cluster's record that a member's state digest differed from the majority's
// at a digest mark (docs/replica-checks.md, "Fencing"). It is replicated state, not a member's
// own conclusion, so the member learns it by applying the log, a restart keeps it, and every
// later leader knows it. It is keyed by the member's Raft ID, which a member rebuilt from an
// empty data dir does not share (its ID is made from its tag and its data dir's incarnation,
// and removal retires the tag), and removal drops it.

// FenceVersion is the cluster version from which the leader fences a diverged member: an
// older build would halt on the command, or, put back after the finalisation, let a fenced
// member serve.
const FenceVersion uint32 = 7

// applyFenceReplica records the fence of a member. A member fenced already keeps its first
// fence: the mark that found it is what an operator reads.
func (st *state) applyFenceReplica(r *raftv1.ReplicaFence) any {
	if r.GetId() == "" {
		return fmt.Errorf("%w: a replica fence names no member", ErrMalformedCommand)
	}
	if len(r.GetDigest()) != DigestLen || len(r.GetMajorityDigest()) != DigestLen {
		return fmt.Errorf("%w: a replica fence's digests are %d and %d bytes, not %d", ErrMalformedCommand, len(r.GetDigest()), len(r.GetMajorityDigest()), DigestLen)
	}
	if _, ok := st.fences[r.GetId()]; !ok {
		st.fences[r.GetId()] = r
	}
	return Done{}
}

// Fence is the fence of the member with Raft ID id, and whether it is fenced.
func (f *FSM) Fence(id string) (*raftv1.ReplicaFence, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	r, ok := f.st.fences[id]
	return r, ok
}

// fenceRecords are the fences as snapshot records, by member ID.
func (m *members) fenceRecords() []snapshotRecord {
	out := make([]snapshotRecord, 0, len(m.fences))
	for _, id := range sortedKeys(m.fences) {
		out = append(out, snapshotRecord{typ: fenceRecord, msg: m.fences[id]})
	}
	return out
}
