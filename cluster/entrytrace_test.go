package cluster

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// OnEntry tells of an applied entry every stage, in the order a commit round passes them, on
// the one node of a single-voter cluster, with the index raft gave the entry.
func TestOnEntryTellsEveryStageInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu     sync.Mutex
			stages = map[uint64]map[EntryStage]time.Time{}
		)
		n, err := Open(context.Background(), Config{ID: "A", DataDir: t.TempDir(), RaftAddr: "inmem-A", Transport: newInmem("inmem-A"), Logger: quiet,
			OnEntry: func(stage EntryStage, first, last uint64, at time.Time) {
				mu.Lock()
				defer mu.Unlock()
				for i := first; i <= last; i++ {
					if stages[i] == nil {
						stages[i] = map[EntryStage]time.Time{}
					}
					stages[i][stage] = at
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		leaderOf(t, n)
		seed(t, n, "users", 7)
		index := n.LastIndex()
		mu.Lock()
		defer mu.Unlock()
		got := stages[index]
		order := []EntryStage{EntryProposed, EntryDispatched, EntryStored, EntryApplying, EntryApplied, EntryAnswered}
		for i, s := range order {
			if got[s].IsZero() {
				t.Fatalf("entry %d: stage %d never told; told %v", index, s, got)
			}
			if i > 0 && got[s].Before(got[order[i-1]]) {
				t.Errorf("entry %d: stage %d at %v, before stage %d at %v", index, s, got[s], order[i-1], got[order[i-1]])
			}
		}
	})
}
