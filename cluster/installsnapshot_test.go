package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// A follower that led once and kept entries no one else has, past the index of the snapshot
// the new leader sends it, must catch up after installing it. Its entry at the snapshot's index
// is of the deposed leader's term; hashicorp/raft v1.7.3 kept the whole log, or emptied a
// MonotonicLogStore but kept its old last index, and the follower then refused every append
// after the install, for ever (third_party/hashicorp/raft/IDNODE.md).
func TestAFollowerWhoseLogConflictsWithASnapshotCatchesUp(t *testing.T) {
	for _, monotonic := range []bool{false, true} {
		t.Run(fmt.Sprintf("monotonic=%v", monotonic), func(t *testing.T) {
			nodes := startDivergedCluster(t, monotonic)
			var leader *divergedNode
			waitFor(t, "a leader among a and b (f's last term is older)", func() bool {
				for _, n := range nodes[:2] {
					if n.raft.State() == raft.Leader {
						leader = n
						return true
					}
				}
				return false
			})
			if err := leader.raft.Apply([]byte("after the election"), testWait).Error(); err != nil {
				t.Fatalf("apply on the leader: %v", err)
			}
			// Apply returned once the leader's FSM applied the entry. f's applied index is
			// raft's, which moves when entries are handed to the FSM's goroutine, before it
			// applies them: so the wait is on f's FSM itself.
			f := nodes[2]
			lead := leader.fsm.Logs()
			waitFor(t, fmt.Sprintf("f's FSM applies the leader's %d commands", len(lead)), func() bool {
				return len(f.fsm.Logs()) >= len(lead)
			})
			if got := f.fsm.Logs(); !slices.EqualFunc(got, lead, slices.Equal) {
				t.Fatalf("f applied %q, the leader %q", got, lead)
			}
		})
	}
}

// divergedNode is one node of startDivergedCluster.
type divergedNode struct {
	raft *raft.Raft
	fsm  *raft.MockFSM
}

// monotonicStore is an in-memory log store that says it refuses gaps, as raft-wal does.
type monotonicStore struct{ *raft.InmemStore }

func (monotonicStore) IsMonotonic() bool { return true }

// The histories of startDivergedCluster: every node holds entries 1..commonLast of term 1;
// a and b then hold entries of term 3 up to leaderLast and a snapshot at snapshotAt, their
// log compacted up to it; f holds entries of term 2, which no other node has, up to staleLast.
const (
	commonLast = 5
	snapshotAt = 20
	staleLast  = 25
	leaderLast = 30
)

// startDivergedCluster starts a, b and f with those histories on in-memory transports. a or
// b wins the election (f's last term is older); its log no longer holds the entry before the
// snapshot, so it sends f the snapshot, whose last entry f's log holds with term 2.
func startDivergedCluster(t *testing.T, monotonic bool) []*divergedNode {
	t.Helper()
	ids := []raft.ServerID{"a", "b", "f"}
	var conf raft.Configuration
	for _, id := range ids {
		conf.Servers = append(conf.Servers, raft.Server{Suffrage: raft.Voter, ID: id, Address: raft.ServerAddress(id)})
	}
	entry := func(index, term uint64) *raft.Log {
		if index == 1 {
			return &raft.Log{Index: 1, Term: 1, Type: raft.LogConfiguration, Data: raft.EncodeConfiguration(conf)}
		}
		return &raft.Log{Index: index, Term: term, Type: raft.LogCommand, Data: fmt.Appendf(nil, "%d@%d", index, term)}
	}
	termOf := func(id raft.ServerID, index uint64) uint64 {
		switch {
		case index <= commonLast:
			return 1
		case id == "f":
			return 2
		default:
			return 3
		}
	}
	trans := make([]*raft.InmemTransport, len(ids))
	for i, id := range ids {
		_, trans[i] = raft.NewInmemTransport(raft.ServerAddress(id))
	}
	for _, a := range trans {
		for _, b := range trans {
			if a != b {
				a.Connect(b.LocalAddr(), b)
			}
		}
	}
	var nodes []*divergedNode
	for i, id := range ids {
		store := raft.NewInmemStore()
		snaps := raft.NewInmemSnapshotStore()
		last, first := uint64(leaderLast), uint64(1)
		if id == "f" {
			last = staleLast
		} else {
			first = snapshotAt + 1
			if err := writeSnapshot(snaps, trans[i], conf, func(index uint64) *raft.Log { return entry(index, termOf(id, index)) }); err != nil {
				t.Fatal(err)
			}
		}
		var logs []*raft.Log
		for index := first; index <= last; index++ {
			logs = append(logs, entry(index, termOf(id, index)))
		}
		if err := store.StoreLogs(logs); err != nil {
			t.Fatal(err)
		}
		if err := store.SetUint64([]byte("CurrentTerm"), termOf(id, last)); err != nil {
			t.Fatal(err)
		}
		var logStore raft.LogStore = store
		if monotonic {
			logStore = monotonicStore{store}
		}
		cfg := raft.DefaultConfig()
		cfg.LocalID = id
		cfg.HeartbeatTimeout, cfg.ElectionTimeout, cfg.LeaderLeaseTimeout = 100*time.Millisecond, 100*time.Millisecond, 100*time.Millisecond
		cfg.Logger = hclog.NewNullLogger()
		fsm := &raft.MockFSM{}
		r, err := raft.NewRaft(cfg, fsm, logStore, store, snaps, trans[i])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Shutdown().Error() })
		nodes = append(nodes, &divergedNode{raft: r, fsm: fsm})
	}
	return nodes
}

// writeSnapshot stores the snapshot of the commands of entries 2..snapshotAt (entry yields
// them) as a MockFSM takes it.
func writeSnapshot(snaps raft.SnapshotStore, trans raft.Transport, conf raft.Configuration, entry func(uint64) *raft.Log) error {
	fsm := &raft.MockFSM{}
	for index := uint64(2); index <= snapshotAt; index++ {
		fsm.Apply(entry(index))
	}
	snap, err := fsm.Snapshot()
	if err != nil {
		return err
	}
	sink, err := snaps.Create(raft.SnapshotVersionMax, snapshotAt, entry(snapshotAt).Term, conf, 1, trans)
	if err != nil {
		return err
	}
	return snap.Persist(sink)
}
