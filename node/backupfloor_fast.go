//go:build fastbackups

package node

import "time"

// MinBackupInterval is a second in the test build (tag fastbackups): the backup drill
// (test/e2e/backups) takes a backup every few seconds instead of every minute or more. The
// release build keeps a minute (backupfloor.go).
const MinBackupInterval = time.Second
