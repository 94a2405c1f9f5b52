// Copyright (c) HashiCorp, Inc.
// SPDX-License-Identifier: MPL-2.0

// This file is idnode's change to hashicorp/raft v1.7.3 (see IDNODE.md): it replaces what
// installSnapshot did with the log after restoring a snapshot.

package raft

// trimLogsAfterInstall makes the log agree with a snapshot just installed, whose last entry
// is index (of term), by the rule of the Raft paper (Figure 13, step 7): entries after the
// snapshot are kept only when the log holds the snapshot's last entry with the same term;
// otherwise the whole log goes. Errors are logged, and the install stands, as before.
//
// Upstream (hashicorp/raft#697) kept whatever the log held after the snapshot, and the cached
// last log index with it. A follower whose log went past the snapshot with entries of a
// deposed leader's term then refused every append after the install: its check of the
// previous entry (the snapshot's last) looked only in the log, where that entry was missing
// (compacted, or all removed from a MonotonicLogStore) or of the other term. The leader,
// walking back to entries it no longer held, sent the snapshot again, for ever.
func (r *Raft) trimLogsAfterInstall(index, term uint64) {
	lastLogIdx, _ := r.getLastLog()
	var entry Log
	suffix := lastLogIdx > index
	matches := suffix && r.logs.GetLog(index, &entry) == nil && entry.Term == term

	if mlogs, ok := r.logs.(MonotonicLogStore); ok && mlogs.IsMonotonic() {
		// Such a store cannot keep a gap before the next entry, so it is emptied whatever it
		// held: the leader sends everything after the snapshot.
		if err := r.removeOldLogs(); err != nil {
			r.logger.Error("failed to reset logs", "error", err)
			return
		}
		r.setLastLog(0, 0)
		return
	}
	switch {
	case matches:
		// Keep the snapshot's last entry too: the next append checks it.
		if err := r.compactLogs(index - 1); err != nil {
			r.logger.Error("failed to compact logs", "error", err)
		}
	case suffix:
		r.logger.Warn("discarding a log that conflicts with the installed snapshot",
			"snapshot-index", index, "snapshot-term", term, "last-index", lastLogIdx)
		first, err := r.logs.FirstIndex()
		if err == nil && first > 0 {
			err = r.logs.DeleteRange(first, lastLogIdx)
		}
		if err != nil {
			r.logger.Error("failed to discard the log", "error", err)
			return
		}
		r.setLastLog(0, 0)
	default:
		if err := r.compactLogs(index); err != nil {
			r.logger.Error("failed to compact logs", "error", err)
		}
	}
}
