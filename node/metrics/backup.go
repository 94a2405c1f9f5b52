package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/idnode/idnode/internal/backupstore"
)

// BackupMetrics count the scheduled backups this node took as leader (node.BackupObserver).
// Only the leader takes them, so the cluster's figure is the max (timestamps) or sum (failures)
// over its nodes: deploy/prometheus/alerts.yml.
type BackupMetrics struct {
	lastSuccess prometheus.Gauge
	lastBytes   prometheus.Gauge
	failures    prometheus.Counter
	now         func() time.Time
}

// Backups registers the scheduled backups' metrics, with the schedule's interval, which the
// alert on missed backups compares against.
func (m *Metrics) Backups(interval time.Duration) *BackupMetrics {
	b := &BackupMetrics{
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "idnode_backup_last_success_timestamp_seconds",
			Help: "When this node last stored a scheduled backup (Unix seconds); 0: not since it started. time() minus the max over the cluster is the newest backup's age."}),
		lastBytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "idnode_backup_last_size_bytes",
			Help: "Size of the last scheduled backup this node stored."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "idnode_backup_failures_total",
			Help: "Scheduled backups this node failed to take as leader; each is retried at the next interval."}),
		now: time.Now,
	}
	intervalGauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "idnode_backup_interval_seconds",
		Help: "The scheduled backups' interval (--backup-interval)."})
	intervalGauge.Set(interval.Seconds())
	m.Registry.MustRegister(b.lastSuccess, b.lastBytes, b.failures, intervalGauge)
	return b
}

// BackupSucceeded records a stored backup.
func (b *BackupMetrics) BackupSucceeded(_ time.Time, sum backupstore.Sum) {
	b.lastSuccess.Set(float64(b.now().UnixNano()) / 1e9)
	b.lastBytes.Set(float64(sum.Size))
}

// BackupFailed counts a failed one.
func (b *BackupMetrics) BackupFailed() { b.failures.Inc() }
