package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/backupstore"
)

func TestBackupMetrics(t *testing.T) {
	m := New()
	b := m.Backups(time.Hour)
	b.now = func() time.Time { return time.Unix(1_800_000_000, 0) }
	b.BackupFailed()
	b.BackupSucceeded(time.Time{}, backupstore.Sum{Size: 1234})
	body := scrape(t, m.Handler())
	for _, want := range []string{
		"idnode_backup_last_success_timestamp_seconds 1.8e+09",
		"idnode_backup_last_size_bytes 1234",
		"idnode_backup_failures_total 1",
		"idnode_backup_interval_seconds 3600",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
