package node

import (
	"sync"
	"time"

	"github.com/idnode/idnode/node/httpapi"
)

// backupsSeen is what the scheduler saw of the store when it last listed it (only while it
// led), and the failures it met: the console's backups panel.
type backupsSeen struct {
	mu          sync.Mutex
	checkedAt   time.Time
	backups     []backup // newest first
	failures    int64
	lastFailure time.Time
	lastError   string
}

func (s *backupsSeen) listed(at time.Time, backups []backup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checkedAt, s.backups = at, backups
}

func (s *backupsSeen) failed(at time.Time, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures++
	s.lastFailure, s.lastError = at, err.Error()
}

// status is the view as GET /v1/backups answers it, ages taken at the scheduler's now.
func (b *backupScheduler) status() httpapi.BackupStatus {
	now := b.now()
	out := httpapi.BackupStatus{Scheduled: true, Store: b.sched.Store.String(), IntervalMs: b.sched.Interval.Milliseconds(), Leader: b.isLeader()}
	s := &b.seen
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.checkedAt.IsZero() {
		out.CheckedAtMs = s.checkedAt.UnixMilli()
	}
	out.Count, out.Failures = len(s.backups), s.failures
	for i, bk := range s.backups {
		if i == httpapi.MaxBackupsShown {
			break
		}
		out.Backups = append(out.Backups, httpapi.BackupEntry{Name: bk.Name, SizeBytes: bk.Size, SlotMs: bk.slot.UnixMilli(),
			StoredAtMs: bk.Modified.UnixMilli(), AgeMs: now.Sub(bk.Modified).Milliseconds()})
	}
	if len(out.Backups) > 0 {
		age := out.Backups[0].AgeMs
		out.NewestAgeMs = &age
	}
	if s.failures > 0 {
		out.LastFailure = &httpapi.BackupFailure{AtMs: s.lastFailure.UnixMilli(), Error: s.lastError}
	}
	return out
}
