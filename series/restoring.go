package series

import (
	"fmt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// A backup's series goes back in chunks (RestoreSeries), and a restore cut short between two
// chunks leaves the series with only its first entries. Its next number is then one the backup
// gave to another document, so the series stays shut, refusing issues and voids, until it holds
// the backup's last entry: its head's restoring_until says which that is. The head is part of
// the journal and of snapshots, so every replica decides alike, and a restart or a snapshot
// keeps the series shut (docs/backups.md).

// refuseWhileRestoring refuses an issue or void into a series a restore has put back in part.
func (o *openSeries) refuseWhileRestoring() error {
	if until := o.def.GetRestoringUntil(); until != 0 {
		return fmt.Errorf("%w: %q of database %q holds %d of the backup's %d entries; run the restore again to put the rest back",
			ErrSeriesRestoring, o.def.GetName(), databaseName(o.def.GetDatabase()), o.def.GetEntries(), until)
	}
	return nil
}

// markRestoring records on head, which a chunk of a backup (its head def) brought to its
// entry reached, whether the series waits for more of the backup. With shut, the series waits
// for the backup's last entry (or a later one an earlier restore awaits); without it, as builds
// before the cluster version that brought this did, it waits only for what it awaited already.
// It reports whether the series waits.
func markRestoring(head, def *raftv1.SeriesDefinition, reached uint64, shut bool) bool {
	until := head.GetRestoringUntil()
	if shut {
		until = max(until, def.GetEntries())
	}
	if reached >= until {
		until = 0
	}
	head.RestoringUntil = until
	return until != 0
}
