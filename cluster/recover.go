package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hashicorp/raft"
)

// PeersFile is the recovery file an operator puts in <data-dir>/raft when a cluster has lost
// its quorum for ever: hashicorp/raft's peers.json, for Raft protocol 3 a JSON list of
// {"id": "A", "address": "host:port", "non_voter": false}. On start the node rewrites its Raft
// configuration to exactly that list (raft.RecoverCluster), then renames the file to
// peers.json.applied so the next start does not do it again. See docs/recovery.md,
// "Disaster recovery: quorum lost for ever".
const PeersFile = "peers.json"

// recoverFromPeersJSON applies <raftDir>/peers.json if it exists. It must run before
// raft.NewRaft, on a data dir with Raft state.
func (n *Node) recoverFromPeersJSON(rc *raft.Config, logs raft.LogStore, snaps raft.SnapshotStore, raftDir string) error {
	path := filepath.Join(raftDir, PeersFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("recovery file %s: %w", path, err)
	}
	conf, err := raft.ReadConfigJSON(path)
	if err != nil {
		return fmt.Errorf("recovery file %s: %w", path, err)
	}
	listed := false
	for _, s := range conf.Servers {
		listed = listed || s.ID == rc.LocalID
	}
	if !listed {
		return fmt.Errorf("recovery file %s does not list this node (id %q): every surviving node gets the same file, and each must be in it", path, rc.LocalID)
	}
	n.log.Warn("RECOVERY: replacing the Raft configuration with the one in peers.json; every node of the new configuration must get the same file",
		"file", path, "servers", fmt.Sprint(conf.Servers))
	if err := raft.RecoverCluster(rc, n.fsm, logs, n.guard, snaps, n.transport, conf); err != nil {
		return fmt.Errorf("recover the cluster from %s: %w", path, err)
	}
	applied := path + ".applied"
	if err := os.Rename(path, applied); err != nil {
		return fmt.Errorf("recovery from %s done, but renaming it to %s failed (remove it by hand before the next start): %w", path, applied, err)
	}
	n.log.Warn("RECOVERY: Raft configuration replaced; peers.json renamed so it is not applied again",
		"applied", applied, "voters", len(conf.Servers))
	return nil
}
