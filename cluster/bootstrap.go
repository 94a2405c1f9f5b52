package cluster

import "github.com/hashicorp/raft"

// The keys under which hashicorp/raft keeps its term and vote in the stable store; raft does
// not export them.
var (
	keyCurrentTerm  = []byte("CurrentTerm")
	keyLastVoteTerm = []byte("LastVoteTerm")
)

// bootstrapTerm is the term raft.BootstrapCluster stores before the configuration entry.
const bootstrapTerm = 1

// bootstrapInterrupted reports whether the Raft state is only what raft.BootstrapCluster
// writes first, the current term, without the configuration entry it writes (and syncs)
// next: a power cut between the two leaves state without a configuration, which never
// starts an election, and whose peers, new too, wait forever for it to form. Such a node was
// told nothing a leader could count: it runs Raft only once its bootstrap is complete, and
// any election would have raised its term and recorded a vote. So the term is cleared and
// the bootstrap done again (the peers may meanwhile have formed the cluster with it, which
// formationConfiguration joins).
func bootstrapInterrupted(logs raft.LogStore, stable raft.StableStore, snaps raft.SnapshotStore) (bool, error) {
	if last, err := logs.LastIndex(); err != nil || last > 0 {
		return false, err
	}
	if list, err := snaps.List(); err != nil || len(list) > 0 {
		return false, err
	}
	if term, err := stable.GetUint64(keyCurrentTerm); err != nil || term != bootstrapTerm {
		return false, notFoundIsNone(err)
	}
	if vote, err := stable.GetUint64(keyLastVoteTerm); notFoundIsNone(err) != nil || vote != 0 {
		return false, notFoundIsNone(err)
	}
	return true, stable.SetUint64(keyCurrentTerm, 0)
}

// notFoundIsNone drops a store's error for a key never set ("not found", which raft itself
// compares as text; raft-wal answers 0 without an error).
func notFoundIsNone(err error) error {
	if err != nil && err.Error() == "not found" {
		return nil
	}
	return err
}
