package cluster

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/raft"
)

// raftNoSnapshotLoads is the text of raft's error when every stored snapshot failed to load at
// start (api.go restoreSnapshot): raft names none of them, and has no sentinel error for it.
const raftNoSnapshotLoads = "failed to load any existing snapshots"

// namedSnapshotFailure explains raft's refusal to start when no snapshot loads: which
// snapshot files are damaged and why, so the operator knows what to restore or remove.
// Other errors pass through.
func namedSnapshotFailure(err error, snaps raft.SnapshotStore, raftDir string) error {
	if err == nil || !strings.Contains(err.Error(), raftNoSnapshotLoads) {
		return err
	}
	metas, listErr := snaps.List()
	if listErr != nil {
		return fmt.Errorf("%w: the snapshots in %s cannot be listed: %v", ErrDamagedStore, filepath.Join(raftDir, "snapshots"), listErr)
	}
	var damaged []string
	for _, m := range metas {
		dir := filepath.Join(raftDir, "snapshots", m.ID)
		_, rc, openErr := snaps.Open(m.ID) // checks the file's CRC
		if openErr != nil {
			damaged = append(damaged, fmt.Sprintf("%s (index %d): %v", filepath.Join(dir, "state.bin"), m.Index, openErr))
			continue
		}
		_ = rc.Close()
		damaged = append(damaged, fmt.Sprintf("%s (index %d): its checksum holds, but the state machine cannot read it (the log above says why)", filepath.Join(dir, "state.bin"), m.Index))
	}
	return fmt.Errorf("%w: no snapshot loads: %s", ErrDamagedStore, strings.Join(damaged, "; "))
}
