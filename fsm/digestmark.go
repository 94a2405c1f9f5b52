package fsm

import (
	"fmt"
	"sync"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// A digest mark is a DigestMark entry in the log: each replica, applying it, takes the digest
// of its state as of that entry's index, so every correct replica holds a digest of the same
// index whatever its pace, and the leader can compare them (docs/replica-checks.md).

// DigestMarkVersion is the cluster version from which the leader proposes digest marks: a
// build of an older version skips them (the command is Ignorable), so it would never report a
// digest, and the leader marks only once every member runs a build that does.
const DigestMarkVersion uint32 = 6

// keptMarks is how many of the latest marks a replica keeps; a comparison asks for the
// latest, so a few cover a member that answers a cadence late.
const keptMarks = 8

// MarkedDigest is a replica's digest at a marked index, and the checksums of its parts. Err
// is set when the hashing failed.
type MarkedDigest struct {
	Index  uint64
	Digest []byte
	Parts  DigestParts
	Err    error
}

// digestMarks is the replica's latest marks, newest last. It is the FSM's, not the state's:
// no snapshot carries it, and a restore keeps it (a mark names an index, not a state).
type digestMarks struct {
	mu    sync.Mutex
	marks []*pendingMark
}

type pendingMark struct {
	index uint64
	done  chan struct{}
	// digest, parts and err are set once done is closed.
	digest []byte
	parts  DigestParts
	err    error
}

// applyDigestMark captures the state's records under the FSM's lock, as Digest does, and
// hashes them on a goroutine of their own, so the applies that follow do not wait for it. It
// changes no state and answers the mark's index.
func (st *state) applyDigestMark(*raftv1.DigestMark) any {
	if st.marks == nil {
		return fmt.Errorf("%w: this state keeps no digest marks", ErrMalformedCommand)
	}
	index := st.journal.index
	st.marks.add(index, st.records(false))
	return index
}

func (d *digestMarks) add(index uint64, records []snapshotRecord) {
	m := &pendingMark{index: index, done: make(chan struct{})}
	d.mu.Lock()
	d.marks = append(d.marks, m)
	if over := len(d.marks) - keptMarks; over > 0 {
		d.marks = append(d.marks[:0:0], d.marks[over:]...)
	}
	d.mu.Unlock()
	go func() {
		m.digest, m.parts, m.err = digestRecordParts(records)
		close(m.done)
	}()
}

// DigestAt answers replica f's digest at the mark of index, waiting for its hashing, and
// false when f holds no mark of that index (it has not applied it yet, or the mark is older
// than the last keptMarks). It is a function, not a method, since the marks are a job of their
// own beside the FSM's state (server/methodcount_test.go keeps FSM's methods few).
func DigestAt(f *FSM, index uint64) (MarkedDigest, bool) {
	f.marks.mu.Lock()
	var m *pendingMark
	for _, c := range f.marks.marks {
		if c.index == index {
			m = c
		}
	}
	f.marks.mu.Unlock()
	if m == nil {
		return MarkedDigest{}, false
	}
	<-m.done
	return MarkedDigest{Index: m.index, Digest: m.digest, Parts: m.parts, Err: m.err}, true
}
