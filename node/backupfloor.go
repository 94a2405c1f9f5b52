//go:build !fastbackups

package node

import "time"

// MinBackupInterval is the shortest interval between scheduled backups: each one copies the
// whole state and lists the store. The test build with tag fastbackups lowers it
// (backupfloor_fast.go), so that a drill sees several backups in seconds.
const MinBackupInterval = time.Minute
